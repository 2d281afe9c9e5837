// The programme of an evening (RULES.md §10.2, docs/events.md): the event form's session
// editor with the 2013 evening in one tap, the run-sheet (the hall, the dashboard) with the
// session now and a countdown to the next, the dashboard's "start the next session", and the
// results page's sessions. The server checks and keeps the programme; this module draws it.

import { call } from "./api.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { limits } from "./limits.js";
import { PRIZES_2013 } from "./tableform.js";
import { showError, toast } from "./ui.js";

/** @typedef {{name: string, starts: string | null, minutes: number | null, game: string}} Session */

export const GAMES = Object.freeze(["none", "cakes", "ranked"]);
/** How often the run-sheet's countdown is redrawn. */
const COUNTDOWN_MS = 15000;

/** Seed 000's evening (活动时程): 会餐 18:00–19:00, 博饼 19:00–19:30, 状元摇奖 19:30–20:00. */
export function evening2013() {
  return [
    { name: t("programme.example.dinner"), starts: "18:00", minutes: 60, game: "none" },
    { name: t("programme.example.cakes"), starts: "19:00", minutes: 30, game: "cakes" },
    { name: t("programme.example.ranked"), starts: "19:30", minutes: 30, game: "ranked" },
  ];
}

/** "19:00–19:30" of a session (its start, and its end when it has minutes). */
export function sessionTimes(/** @type {Session} */ session) {
  if (!session.starts) return session.minutes ? t("programme.minutes", { n: session.minutes }) : "";
  if (!session.minutes) return session.starts;
  const [hh, mm] = session.starts.split(":").map(Number);
  const end = hh * 60 + mm + session.minutes;
  const pad = (/** @type {number} */ n) => String(n).padStart(2, "0");
  return `${session.starts}–${pad(Math.floor(end / 60) % 24)}:${pad(end % 60)}`;
}

/** The session editor of the event form: rows of name, start, minutes and game. */
export class ProgrammeEditor {
  /** @param {{onChange?: () => void, onLoad2013?: () => void}} options */
  constructor({ onChange = () => {}, onLoad2013 = () => {} } = {}) {
    /** @type {Session[]} */
    this.sessions = [];
    this.startOnTime = false;
    this.onChange = onChange;
    this.onLoad2013 = onLoad2013;
    this.rows = h("div", { class: "ev-programme-rows" });
    this.el = h(
      "fieldset",
      { class: "fieldset ev-programme", id: "ev-programme" },
      h("legend", { class: "field-label" }, t("programme.title")),
      h("p", { class: "hint" }, t("programme.hint")),
      this.rows,
      h(
        "label",
        { class: "ev-check" },
        (this.onTimeBox = h("input", {
          type: "checkbox",
          id: "ev-start-on-time",
          onchange: (/** @type {Event} */ ev) => {
            this.startOnTime = /** @type {HTMLInputElement} */ (ev.target).checked;
          },
        })),
        h("span", {}, t("programme.start_on_time")),
      ),
      h(
        "div",
        { class: "ev-row" },
        h(
          "button",
          {
            type: "button",
            class: "btn btn-ghost btn-small",
            id: "ev-programme-add",
            onclick: () => this.add(),
          },
          t("programme.add"),
        ),
        h(
          "button",
          {
            type: "button",
            class: "btn btn-ghost btn-small",
            id: "ev-programme-2013",
            onclick: () => this.load2013(),
          },
          t("programme.load_2013"),
        ),
      ),
    );
    this.paint();
  }

  /**
   * @param {Session[] | null | undefined} sessions
   * @param {boolean} [onTime]  "start on time" ticked
   */
  set(sessions, onTime = false) {
    this.sessions = (sessions || []).map((s) => ({ ...s }));
    this.startOnTime = Boolean(onTime);
    /** @type {HTMLInputElement} */ (this.onTimeBox).checked = this.startOnTime;
    this.paint();
  }

  /** The create body's ``programme`` and ``start_on_time`` ({} without a programme). */
  bodyPart() {
    const programme = this.value();
    if (!programme.length) return {};
    return { programme, ...(this.startOnTime ? { start_on_time: true } : {}) };
  }

  load2013() {
    this.set(evening2013());
    this.onLoad2013();
    this.onChange();
    toast(t("programme.loaded_2013"));
  }

  add() {
    const lim = limits();
    if (this.sessions.length >= lim.max_sessions) return;
    this.sessions.push({ name: "", starts: null, minutes: null, game: "cakes" });
    this.paint();
    const names = this.rows.querySelectorAll(".ev-session-name");
    if (names.length) /** @type {HTMLInputElement} */ (names[names.length - 1]).focus();
  }

  /** Whether a session plays the ranked prizes or the 会饼 (the form shows their editors). */
  plays(/** @type {string} */ game) {
    return this.value().some((s) => s.game === game);
  }

  /** The create body's ``programme``: the rows with a name ([] without any). */
  value() {
    return this.sessions
      .filter((s) => s.name.trim())
      .map((s) => ({
        name: s.name.trim(),
        starts: s.starts || null,
        minutes: Number(s.minutes) >= 1 ? Number(s.minutes) : null,
        game: s.game,
      }));
  }

  paint() {
    const lim = limits();
    this.rows.replaceChildren(
      ...this.sessions.map((session, index) => {
        const n = index + 1;
        const changed = () => this.onChange();
        return h(
          "div",
          { class: "ev-row ev-session", "data-session": String(index) },
          h("input", {
            class: "input ev-session-name",
            value: session.name,
            maxlength: lim.max_session_name,
            "aria-label": t("programme.name_n", { n }),
            oninput: (/** @type {Event} */ ev) => {
              session.name = /** @type {HTMLInputElement} */ (ev.target).value;
              changed();
            },
          }),
          h("input", {
            class: "input ev-session-starts",
            type: "time",
            value: session.starts || "",
            "aria-label": t("programme.starts_n", { n }),
            onchange: (/** @type {Event} */ ev) => {
              session.starts = /** @type {HTMLInputElement} */ (ev.target).value || null;
              changed();
            },
          }),
          h("input", {
            class: "input input-num ev-session-minutes",
            type: "number",
            min: 1,
            max: lim.max_session_minutes,
            value: session.minutes == null ? "" : String(session.minutes),
            "aria-label": t("programme.minutes_n", { n }),
            oninput: (/** @type {Event} */ ev) => {
              const value = /** @type {HTMLInputElement} */ (ev.target).value;
              session.minutes = value === "" ? null : Number(value);
              changed();
            },
          }),
          h(
            "select",
            {
              class: "input ev-session-game",
              "aria-label": t("programme.game_n", { n }),
              onchange: (/** @type {Event} */ ev) => {
                session.game = /** @type {HTMLSelectElement} */ (ev.target).value;
                changed();
              },
            },
            GAMES.map((game) =>
              h(
                "option",
                { value: game, selected: session.game === game },
                t(`programme.game.${game}`),
              ),
            ),
          ),
          h(
            "button",
            {
              type: "button",
              class: "btn btn-ghost btn-small",
              "aria-label": t("programme.remove_n", { n }),
              onclick: () => {
                this.sessions.splice(index, 1);
                this.paint();
                changed();
              },
            },
            "×",
          ),
        );
      }),
    );
  }
}

/**
 * The event form's editor, wired to the form (views/event_new.js): the goods editor shows
 * while a session plays the 会饼; "the 2013 evening" also loads 2013's ranked prizes and
 * empties the 会饼's goods (000: 会饼（自愿赞助）, given: they cost the budget nothing).
 * @param {any} view  the EventNewView
 */
export function programmeFor(view) {
  const editor = new ProgrammeEditor({
    onChange: () => {
      if (view.prizeSet)
        view.prizeSet.hidden = view.values.award !== "cakes" && !editor.plays("cakes");
      view.schedulePreview();
    },
    onLoad2013: () => {
      view.values.award = "ranked";
      view.ranked = PRIZES_2013.map((p) => ({ ...p }));
      view.prizes = {};
      view.paint();
    },
  });
  return editor;
}

/** Minutes from ``now`` to ``HH:MM`` of the same day (negative once past). */
function minutesUntil(/** @type {string} */ hhmm, /** @type {Date} */ now) {
  const [hh, mm] = hhmm.split(":").map(Number);
  return hh * 60 + mm - (now.getHours() * 60 + now.getMinutes() + now.getSeconds() / 60);
}

/**
 * Where the evening is: the index of the session now (or -1) and of the next one (or -1).
 * The tables say which game session is on; between games, the clock (``starts``) says
 * which slot of the run-sheet (会餐, 颁奖) is.
 * @param {any} event  GET /api/events/CODE
 * @param {Date} now
 */
export function whereNow(event, now) {
  /** @type {Session[]} */
  const programme = event.programme || [];
  const tables = event.tables || [];
  const current = typeof event.session === "number" ? event.session : 0;
  const started = tables.some((/** @type {any} */ tb) => tb.status !== "lobby");
  const over = tables.length > 0 && tables.every((/** @type {any} */ tb) => tb.status === "over");
  if (started && !over)
    return { now: current, next: current + 1 < programme.length ? current + 1 : -1 };
  // between games: the slot of the run-sheet whose start has come (会餐 before, 颁奖 after)
  const [from, to] = started ? [current + 1, programme.length] : [0, current];
  let slot = -1;
  for (let i = from; i < to; i++) {
    const starts = programme[i].starts;
    if (starts && minutesUntil(starts, now) <= 0) slot = i;
  }
  const next = started ? Math.max(slot, current) + 1 : slot >= 0 ? slot + 1 : current;
  return { now: slot, next: next < programme.length ? next : -1 };
}

/** The countdown's text to a session's start ("还有 12 分钟"), or "" without a start time. */
export function countdownText(/** @type {Session} */ session, /** @type {Date} */ now) {
  if (!session || !session.starts) return "";
  const left = minutesUntil(session.starts, now);
  if (left <= 0) return t("programme.due");
  const whole = Math.ceil(left);
  if (whole < 60) return t("programme.in_minutes", { n: whole });
  return t("programme.in_hours", { h: Math.floor(whole / 60), m: whole % 60 });
}

/**
 * The run-sheet: every session with its times and game, the session now marked, and a
 * countdown to the next. ``null`` for an event without a programme.
 * @param {any} event
 * @param {Date} [now]
 */
export function runSheet(event, now = new Date()) {
  /** @type {Session[]} */
  const programme = event.programme || [];
  if (!programme.length) return null;
  const where = whereNow(event, now);
  const next = where.next >= 0 ? programme[where.next] : null;
  const countdown = next ? countdownText(next, now) : "";
  const clock = h("strong", { class: "run-sheet-countdown" }, countdown);
  if (next && next.starts) {
    // the countdown goes on between the screen's repaints (which come only with news)
    const timer = setInterval(() => {
      if (!clock.isConnected) clearInterval(timer);
      else clock.textContent = countdownText(next, new Date());
    }, COUNTDOWN_MS);
  }
  return h(
    "section",
    { class: "run-sheet", id: "run-sheet", "aria-label": t("programme.title") },
    h(
      "ol",
      { class: "run-sheet-list" },
      programme.map((session, index) =>
        h(
          "li",
          {
            class:
              "run-sheet-item" +
              (index === where.now ? " is-now" : "") +
              (index === where.next ? " is-next" : ""),
            "data-session": String(index),
            ...(index === where.now ? { "aria-current": "step" } : {}),
          },
          h("span", { class: "run-sheet-time" }, sessionTimes(session)),
          h("span", { class: "run-sheet-name" }, session.name),
          h("span", { class: "run-sheet-game" }, t(`programme.game.${session.game}`)),
          index === where.now ? h("span", { class: "run-sheet-tag" }, t("programme.now")) : null,
        ),
      ),
    ),
    next
      ? h(
          "p",
          { class: "run-sheet-next", id: "run-sheet-next" },
          t("programme.next", { name: next.name }),
          countdown ? " · " : "",
          countdown ? clock : null,
        )
      : null,
  );
}

/**
 * The dashboard's run-sheet and its "start the next session" button: once every table of
 * the session is over, it starts the next game session at every table (POST …/session).
 * @param {any} event
 * @param {{token: string | null, onStarted: (started: any) => void}} options
 */
export function sessionPanel(event, { token, onStarted }) {
  const sheet = runSheet(event);
  if (!sheet) return null;
  const index = event.next_session;
  if (token && event.start_on_time) startOnTime(event, sheet, token, onStarted);
  if (token && typeof index === "number" && event.session_over) {
    const session = event.programme[index];
    const button = h(
      "button",
      {
        type: "button",
        class: "btn btn-primary",
        id: "ev-start-session",
        onclick: async () => {
          button.disabled = true;
          try {
            const started = await call(
              "POST",
              `/api/events/${encodeURIComponent(event.code)}/session`,
              { body: { session: index }, token },
            );
            toast(t("programme.started", { name: started.name }));
            onStarted(started);
          } catch (err) {
            showError(err);
            button.disabled = false;
          }
        },
      },
      t("programme.start", { name: session.name }),
    );
    sheet.append(h("p", { class: "run-sheet-actions" }, button));
  }
  return sheet;
}

/** The sessions this page has started on time already (``CODE:index``): once each. */
const startedOnTime = new Set();

/**
 * "Start on time": while the organiser's dashboard is open, the game session due next starts
 * at its ``starts`` (the first one with 全部桌：开始, the later ones as the button would).
 * @param {any} event
 * @param {HTMLElement} sheet  the run-sheet on the page (the timer stops with it)
 * @param {string} token
 * @param {(started: any) => void} onStarted
 */
function startOnTime(event, sheet, token, onStarted) {
  const tables = event.tables || [];
  const waiting =
    tables.length > 0 && tables.every((/** @type {any} */ tb) => tb.status === "lobby");
  const index = waiting ? event.session : event.session_over ? event.next_session : null;
  const session = typeof index === "number" ? event.programme[index] : null;
  if (!session || !session.starts) return;
  const key = `${event.code}:${index}`;
  const path = `/api/events/${encodeURIComponent(event.code)}`;
  const due = async () => {
    if (startedOnTime.has(key) || minutesUntil(session.starts, new Date()) > 0) return false;
    startedOnTime.add(key);
    try {
      if (waiting) await call("POST", `${path}/control`, { body: { action: "start" }, token });
      else onStarted(await call("POST", `${path}/session`, { body: { session: index }, token }));
      toast(t("programme.started", { name: session.name }));
    } catch (err) {
      showError(err);
    }
    return true;
  };
  const timer = setInterval(async () => {
    if (!sheet.isConnected || (await due())) clearInterval(timer);
  }, COUNTDOWN_MS);
}

/**
 * The results page's sessions: each game session's state and, for a ranked one, its
 * event-wide ranking (who took which prize). ``null`` without a programme.
 * @param {any} results  GET /api/events/CODE/results
 */
export function sessionsResults(results) {
  const sessions = results.sessions || [];
  if (!sessions.length) return null;
  return h(
    "section",
    { class: "card ev-sessions", id: "ev-sessions" },
    h("h2", { class: "sub-title" }, t("programme.title")),
    sessions.map((/** @type {any} */ session) =>
      h(
        "div",
        { class: "ev-session-result", "data-session": String(session.index) },
        h(
          "h3",
          { class: "ev-session-title" },
          [sessionTimes(session), session.name, t(`programme.game.${session.game}`)]
            .filter(Boolean)
            .join(" · "),
        ),
        session.ranking
          ? h(
              "ol",
              { class: "ev-session-ranking" },
              session.ranking
                .filter((/** @type {any} */ row) => row.prize)
                .map((/** @type {any} */ row) =>
                  h(
                    "li",
                    {},
                    t("programme.ranked_line", {
                      player: row.player,
                      table: row.table,
                      dice: row.dice || "—",
                      prize: row.prize,
                    }),
                  ),
                ),
            )
          : null,
      ),
    ),
  );
}

/** The session a prize came from, by its index ("" without). */
export function sessionName(/** @type {any} */ results, /** @type {number | undefined} */ index) {
  const sessions = results.sessions || [];
  const session = sessions.find((/** @type {any} */ s) => s.index === index);
  return session ? session.name : "";
}
