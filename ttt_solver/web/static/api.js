// The page's only door to the server: the JSON API, each answer kept (answers for a database
// never change, so a position seen once is shown again at once, e.g. on Back and Forward).

export class ApiError extends Error {}

const cache = new Map();

// The API's one-line message, whatever the exact shape of the error body.
function messageOf(body, status) {
  const error = body && typeof body === "object" ? body.error ?? body.detail : undefined;
  if (typeof error === "string" && error) return error;
  if (error && typeof error.message === "string") return error.message;
  return `the server answered HTTP ${status}`;
}

async function get(path) {
  if (cache.has(path)) return cache.get(path);
  const response = await fetch(path);
  const body = await response.json().catch(() => null);
  if (!response.ok || body === null) throw new ApiError(messageOf(body, response.status));
  cache.set(path, body);
  return body;
}

export async function fetchVariants() {
  return (await get("/api/v1/variants")).variants;
}

export function byBoard(variant, board) {
  return get(`/api/v1/${encodeURIComponent(variant)}?board=${encodeURIComponent(board)}`);
}

export function byMoves(variant, moves) {
  return get(`/api/v1/${encodeURIComponent(variant)}?moves=${encodeURIComponent(moves)}`);
}
