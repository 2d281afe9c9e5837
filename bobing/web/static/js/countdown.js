// A table's time limit on every screen: the countdown to the server's deadline (on the server's
// clock, see clock.js), the clock stopped while paused, and once time is called, how the game
// ends ("time's up: last round, until 丙"). docs/protocol.md, Time limits and calling time.

import { h, mount, s } from "./dom.js";
import { t } from "./i18n.js";
import { STATUS } from "./protocol.js";
import { serverNow } from "./clock.js";
import { announce, confirmDialog } from "./ui.js";
import { leaderText } from "./award.js";

const TICK_MS = 250;
const URGENT_S = 60;
/** Minutes left at which a screen reader hears how long is left. */
const MILESTONES = [10, 5, 1];

const CLOCK = "M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18 M12 7v5l3 2";
const BELL = "M3 6l3-3 M21 6l-3-3";

/**
 * A clock drawn in the icons' style (emoji fonts are not everywhere); ringing once time is up.
 * @param {boolean} ringing
 */
function clockIcon(ringing) {
  return s(
    "svg",
    { viewBox: "0 0 24 24", class: "icon countdown-icon", "aria-hidden": "true" },
    s("path", { d: ringing ? `${CLOCK} ${BELL}` : CLOCK }),
  );
}

/**
 * "4:05", "1:02:03" for a number of seconds (rounded up: 0:00 only when time is up).
 * @param {number} seconds
 */
export function clockText(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  const hours = Math.floor(s / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, "0");
  return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${rest}` : `${minutes}:${rest}`;
}

/**
 * Seconds left on the table's clock now (null without a running or stopped clock).
 * @param {import("./protocol.js").TableState} state
 */
export function secondsLeft(state) {
  if (!state) return null;
  if (state.deadline) return (Date.parse(state.deadline) - serverNow()) / 1000;
  if (state.status === STATUS.PAUSED && typeof state.time_left === "number") return state.time_left;
  return null;
}

/**
 * Who throws last before a close now ends the game: the player before the starter.
 * @param {import("./session.js").TableSession & Record<string, any>} session
 */
export function roundEnder(session) {
  const st = /** @type {import("./protocol.js").TableState} */ (session.state); // a game on
  const started = session.events.find(
    (/** @type {Record<string, any>} */ e) => e.type === "started" && !session.isVoided(e),
  );
  const names = (st.players || []).map((/** @type {Record<string, any>} */ p) => p.name);
  if (!started || !names.length) return null;
  const step = st.rules.direction === "counterclockwise" ? -1 : 1;
  const at = names.indexOf(started.starter);
  return at < 0 ? null : names[(((at - step) % names.length) + names.length) % names.length];
}

/**
 * The sentence for time called: by whom, and until when the game goes on.
 * @param {import("./protocol.js").TableState} state
 */
export function closingText(state) {
  const c = state.closing;
  if (!c) return "";
  const who = t(c.by === "deadline" ? "clock.called_deadline" : "clock.called_host");
  const fin = state.final_round;
  if (state.status === STATUS.OVER) return who;
  return fin && fin.last_thrower
    ? `${who} · ${t("clock.last_round_until", { player: fin.last_thrower })}`
    : who;
}

/**
 * The countdown bar of a table: it follows the session by itself (subscribe, tick, paint);
 * a view only places `el` and calls `destroy()`.
 */
export class CountdownBar {
  /**
   * @param {import("./session.js").TableSession & Record<string, any>} session
   */
  constructor(session, { big = false } = {}) {
    this.session = session;
    this.big = big;
    this.el = h("div", {
      class: `countdown${big ? " countdown-big" : ""}`,
      role: "timer",
      "aria-atomic": "true",
      hidden: true,
    });
    this.timer = null;
    this.key = "";
    this.spoken = new Set();
    this.onUpdate = () => this.paint();
    session.addEventListener("update", this.onUpdate);
    this.paint();
  }

  destroy() {
    this.session.removeEventListener("update", this.onUpdate);
    clearInterval(this.timer ?? undefined);
    this.timer = null;
  }

  paint() {
    const st = this.session.state;
    const counting = Boolean(st && st.deadline && st.status === STATUS.PLAYING && !st.closing);
    if (counting && !this.timer) this.timer = setInterval(() => this.tick(), TICK_MS);
    if (!counting && this.timer) {
      clearInterval(this.timer ?? undefined);
      this.timer = null;
    }
    this.tick();
  }

  tick() {
    const st = this.session.state;
    let kind = "none";
    let text = "";
    if (!st || st.status === STATUS.OVER) {
      kind = "none";
    } else if (st.closing) {
      kind = "called";
      text = closingText(st);
    } else if (st.status === STATUS.LOBBY && st.time_limit) {
      kind = "lobby";
      text = t("clock.lobby", { n: st.time_limit });
    } else {
      const left = secondsLeft(st);
      if (left !== null) {
        if (st.status === STATUS.PAUSED) {
          kind = "paused";
          text = t("clock.paused", { time: clockText(left) });
        } else if (left <= 0) {
          kind = "up";
          text = t("clock.up");
        } else {
          kind = left <= URGENT_S ? "urgent" : "running";
          text = t("clock.left", { time: clockText(left) });
          this.milestone(left);
        }
      }
    }
    const key = `${kind}|${text}`;
    if (key === this.key) return;
    const was = this.key.split("|")[0];
    this.key = key;
    this.el.hidden = kind === "none";
    this.el.className = `countdown countdown-${kind}${this.big ? " countdown-big" : ""}`;
    this.el.dataset.kind = kind;
    mount(
      this.el,
      kind === "none"
        ? null
        : [
            clockIcon(kind === "called" || kind === "up"),
            h("span", { class: "countdown-text" }, text),
          ],
    );
    if ((kind === "called" && was !== "called") || (kind === "up" && was === "urgent"))
      announce(text);
  }

  /**
   * @param {number} left
   */
  milestone(left) {
    for (const minutes of MILESTONES) {
      if (left <= minutes * 60 && left > minutes * 60 - 5 && !this.spoken.has(minutes)) {
        this.spoken.add(minutes);
        announce(t("clock.minutes_left", { n: minutes }));
      }
    }
  }
}

/**
 * What "end the game" will do at this table, for the host to read before confirming.
 * @param {import("./session.js").TableSession & Record<string, any>} session
 */
export function closeQuestion(session) {
  const st = /** @type {import("./protocol.js").TableState} */ (session.state); // a game on
  const byRules = st.rules.end === "immediate";
  // the server says whether a close now ends at once: no throw yet in this round
  const immediate = byRules || st.close_at_once === true;
  const lines = [];
  if (byRules) {
    lines.push(t("close.now"));
  } else if (immediate) {
    lines.push(t("close.now_no_round"));
  } else {
    const fin = st.final_round;
    const last = fin && fin.last_thrower ? fin.last_thrower : roundEnder(session);
    lines.push(last ? t("close.round", { player: last }) : t("close.round_plain"));
  }
  if (st.rules.award === "ranked") {
    lines.push(t("close.ranked"));
  } else {
    const leader = leaderText(st.result, st.rules);
    lines.push(leader ? t("close.zhuangyuan", { leader }) : t("close.no_standing"));
    lines.push(t("close.unclaimed"));
  }
  lines.push(t("close.final"));
  return {
    title: t(immediate ? "close.title_now" : "close.title"),
    body: lines.join(t("close.join")),
    yes: t(immediate ? "close.yes_now" : "close.yes"),
  };
}

/**
 * Ask the host, then call time; resolves true when the close was sent.
 * @param {any} session
 */
export async function askClose(session) {
  const yes = await confirmDialog({ ...closeQuestion(session), danger: true });
  return yes;
}
