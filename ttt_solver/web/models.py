"""The shapes of the API's JSON, as pydantic models: they make the OpenAPI schema.

Responses are serialised once by the handlers (the answers never change for a database, so
they are cached as bytes); these models document them and the tests check every response
against the served schema.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

MAX_BATCH = 10_000


class MoveOut(BaseModel):
    cell: int = Field(description="The cell played, row-major from the top-left")
    value: Literal[-1, 0, 1] = Field(description="+1 win, 0 draw, -1 loss for the player making the move")
    remoteness: int = Field(ge=0, description="Plies from the position to the end of the game after this move")


class PositionOut(BaseModel):
    """Exactly what ``ttt-lookup analyze --json`` prints."""

    board: str = Field(description="The normalised text form (X, O and . for empty)", examples=["X...O...."])
    to_move: Literal["X", "O"] = Field(description="The side to move (on a finished board: who would move next)")
    value: Literal[-1, 0, 1] = Field(description="+1 win, 0 draw, -1 loss for the side to move")
    outcome: Literal["win", "draw", "loss"]
    remoteness: int = Field(ge=0, description="Plies to the end under perfect play")
    best_moves: list[int] = Field(description="Cells that keep the value (win, draw or loss), ascending")
    preferred_moves: list[int] = Field(
        description="The best moves with the best remoteness (value first, then remoteness: win fastest,"
        " lose slowest), ascending; what the perfect player and the perfect line choose from"
    )
    moves: list[MoveOut] = Field(description="Every legal move, best first")
    line: list[int] = Field(description="A principal variation: the cells of perfect play to the end")
    winner: Literal["X", "O"] | None = Field(
        default=None, description="Only on a finished board: the winner, or null for a draw"
    )


class BatchIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    boards: list[str] = Field(
        max_length=MAX_BATCH,
        description=f"Board texts (up to {MAX_BATCH:,}), any accepted spelling",
        examples=[["X...O....", "........."]],
    )
    on_error: Literal["refuse", "item"] = Field(
        default="refuse",
        description="refuse: a bad board makes the whole batch a 400 naming it; item: every good board is"
        " answered, and each bad one is an error object in its place",
    )


class BatchResult(BaseModel):
    board: str = Field(description="The normalised text form")
    value: Literal[-1, 0, 1] = Field(description="+1 win, 0 draw, -1 loss for the side to move")
    remoteness: int = Field(ge=0)
    best_move: int | None = Field(
        description="One preferred move, as `ttt-lookup best` gives (value, then remoteness: fastest win,"
        " slowest loss; lowest cell on ties); null if over"
    )


class BatchItemError(BaseModel):
    board: str = Field(description="The board as it was sent")
    error: str = Field(description="What is wrong with it, in the words of a single lookup's 400")


class BatchOut(BaseModel):
    results: list[BatchResult | BatchItemError] = Field(
        description='One result per board, in the order given; with "on_error": "item", an error object for'
        " each bad board"
    )


class VariantOut(BaseModel):
    name: str = Field(examples=["3x3"])
    rows: int
    cols: int
    k: int = Field(description="How many in a row win (or lose, in misère)")
    misere: bool
    cells: int
    status: Literal["ready", "loading", "not loaded"] = Field(
        description="ready: opened; not loaded: opened when one of its positions is first asked for; loading: being opened"
    )
    meta: dict[str, str | int] | None = Field(
        description="The database's meta table (digest, positions, built_at, ...): whole numbers as numbers;"
        " null until the database is opened"
    )
    stats: dict[str, Any] | None = Field(
        description="What `ttt-lookup stats --json` prints; null until the database is opened"
    )


class VariantsOut(BaseModel):
    variants: list[VariantOut]


class HealthOut(BaseModel):
    status: Literal["ok"]


class ErrorOut(BaseModel):
    error: str = Field(description="One message naming what is wrong")
    status: Literal["loading"] | None = Field(
        default=None,
        description="Only while the variant's database is being opened (a 503 with Retry-After): ask again then",
    )
