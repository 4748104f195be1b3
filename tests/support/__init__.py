"""What the tests share: builders of test data, servers, pages, reference solvers."""
