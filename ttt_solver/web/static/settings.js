// The settings beside the game: the opponent, its skill and the play mode. Each is read from
// the address, a history entry or its field, kept in the state and shown in its field; a
// skill that is no chance from 0 to 1 is refused beside the field, which keeps what was typed.
import { state } from "./game.js";
import { skillProblem } from "./words.js";

const $ = (id) => document.getElementById(id);

// A skill as a number, or null for anything that is no chance from 0 to 1.
export function parseSkill(text) {
  const number = text.trim() === "" ? NaN : Number(text);
  return Number.isFinite(number) && number >= 0 && number <= 1 ? number : null;
}

// Take `text` as the skill in play, or refuse it beside the field (the skill in play stays).
export function readSkill(text) {
  const number = parseSkill(text);
  const accepted = number !== null;
  if (accepted) state.skill = number;
  $("skill").setAttribute("aria-invalid", String(!accepted));
  $("skill-problem").textContent = accepted ? "" : skillProblem(text, state.skill);
  $("skill-problem").hidden = accepted;
  return accepted;
}

export function showSkill(text) {
  $("skill").value = text;
  readSkill(text);
}

export function readSettings(mode, skill, hidden) {
  state.mode = ["X", "O"].includes(mode) ? mode : "none";
  $("mode").value = state.mode;
  showSkill(String(skill ?? "1"));
  state.hidden = Boolean(hidden);
}

export const skillRefused = () => $("skill").getAttribute("aria-invalid") === "true";
