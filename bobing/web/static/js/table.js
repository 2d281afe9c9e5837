// /t/CODE: the lobby, the game or the ceremony, whichever the table's status calls for.
// The lobby comes with the page; the game's screens and the table's life (celebrations,
// reactions, the rematch, the history) are fetched once the lobby is complete, or at once for
// a table already playing: a guest opening the QR code's link waits only for the lobby.
// Not a view itself: it picks among three (views/lobby.js, play.js, end.js) as app.js picks
// among the routes, so no view imports another.

import { h, mount } from "./dom.js";
import { t } from "./i18n.js";
import { STATUS } from "./protocol.js";
import { loadRulebook } from "./rulebook.js";
import { renderTopbar, icon, toast, errorText } from "./ui.js";
import { LobbyPanel } from "./views/lobby.js";
import { keepFocus } from "./widgets/keep_focus.js";

/**
 * @typedef {object} Game the modules a table needs past its lobby
 * @property {typeof import("./views/play.js").PlayPanel} PlayPanel
 * @property {typeof import("./views/end.js").EndPanel} EndPanel
 * @property {typeof import("./celebrations.js").attachTableLife} attachTableLife
 */

/** @type {Promise<Game> | null} */
let gameLoad = null;
/** @type {Game | null} */
let game = null;
/** @type {(game: Game) => void} */
let gameLoaded;
/** Resolves with the game's modules once loadGame() has fetched them (it does not fetch). */
export const gameReady = /** @type {Promise<Game>} */ (
  new Promise((resolve) => {
    gameLoaded = resolve;
  })
);

/** Fetch the game's modules (once; again after a failure). @returns {Promise<Game>} */
export function loadGame() {
  if (!gameLoad) {
    gameLoad = Promise.all([
      import("./views/play.js"),
      import("./views/end.js"),
      import("./celebrations.js"),
    ])
      .then(([play, end, life]) => {
        game = {
          PlayPanel: play.PlayPanel,
          EndPanel: end.EndPanel,
          attachTableLife: life.attachTableLife,
        };
        gameLoaded(game);
        return game;
      })
      .catch((err) => {
        gameLoad = null;
        throw err;
      });
  }
  return gameLoad;
}

/**
 * How long a complete lobby leaves the network to its own late requests (the QR code, the invite
 * address) before the game's screens are fetched: gathering a table takes far longer.
 */
const GAME_PREFETCH_DELAY_MS = 1500;

/** When the browser has a moment (Safari has no requestIdleCallback). @param {() => void} fn */
function whenIdle(fn) {
  if ("requestIdleCallback" in window) window.requestIdleCallback(fn, { timeout: 2000 });
  else setTimeout(fn, 0);
}

/**
 * Top-bar links of a table: its rules and its big screen.
 * @param {any} code
 */
export function tableLinks(code) {
  return [
    h(
      "a",
      {
        href: `/t/${code}/rules`,
        "data-link": "",
        class: "icon-btn",
        "aria-label": t("nav.rules"),
        title: t("nav.rules"),
      },
      icon("book"),
    ),
    h(
      "a",
      {
        href: `/t/${code}/tv`,
        "data-link": "",
        class: "icon-btn",
        "aria-label": t("nav.tv"),
        title: t("nav.tv"),
      },
      icon("tv"),
    ),
  ];
}

/**
 * The way back from a table of an event (or its 状元王中王) to the event's page.
 * @param {any} event
 */
export function eventLink(event) {
  return h(
    "a",
    {
      href: `/e/${event}`,
      "data-link": "",
      class: "icon-btn table-event-link",
      "aria-label": t("event.nav.dashboard"),
      title: t("event.nav.dashboard"),
    },
    icon("tables"),
  );
}

/**
 * A new screen (lobby → game → ceremony) opens at its top, whatever the previous one was
 * scrolled to: the bowl, the throw button and the 状元 seal are what people look for first.
 * The focus moves to the screen's main heading (or the main region) for screen readers.
 * @param {HTMLElement} main
 */
export function showFromTop(main) {
  window.scrollTo(0, 0);
  const heading = main.querySelector("h1");
  const target = heading || main;
  if (heading && !heading.hasAttribute("tabindex")) heading.setAttribute("tabindex", "-1");
  target.focus({ preventScroll: true });
}

export class TableView {
  /**
   * @param {HTMLElement} main
   * @param {import("./session.js").TableSession} session
   * @param {Record<string, any>} ctx
   */
  constructor(main, session, ctx) {
    this.main = main;
    this.session = session;
    this.ctx = ctx;
    /** @type {any} */
    this.panel = null;
    /** @type {string | null} */
    this.kind = null;
    this.topKey = "";
    this.onUpdate = (/** @type {CustomEvent} */ ev) => this.update(ev.detail);
    this.onServerError = (/** @type {CustomEvent} */ ev) => {
      if (ev.detail.code === "invalid_token")
        toast(t("error.invalid_token_saved"), { kind: "error" });
      else toast(errorText(ev.detail), { kind: "error" });
    };
    // whichever screen is showing (the start dice are thrown in the lobby): say it at once
    this.onNonce = (/** @type {CustomEvent} */ ev) =>
      toast(
        ev.detail.throw
          ? t("play.nonce_alert", { n: ev.detail.throw })
          : t("play.nonce_alert_start"),
        { kind: "error" },
      );
    session.addEventListener("update", this.onUpdate);
    session.addEventListener("servererror", this.onServerError);
    session.addEventListener("nonce", this.onNonce);
  }

  destroy() {
    this.destroyed = true;
    this.session.removeEventListener("update", this.onUpdate);
    this.session.removeEventListener("servererror", this.onServerError);
    this.session.removeEventListener("nonce", this.onNonce);
    if (this.panel && this.panel.destroy) this.panel.destroy();
  }

  topbar(force = false) {
    const st = this.session.state;
    const event = (st && st.event) || null;
    const key = `${st ? st.name : ""}|${this.session.status}|${event}`;
    if (!force && key === this.topKey) return;
    this.topKey = key;
    renderTopbar({
      title: st ? st.name : this.session.code,
      conn: this.session.status,
      extra: [event ? eventLink(event) : null, ...tableLinks(this.session.code)],
    });
  }

  panelKind() {
    const st = this.session.state;
    if (this.session.gone) return "gone";
    if (!st) return "loading";
    if (st.status === STATUS.LOBBY) return "lobby";
    if (st.status === STATUS.OVER) return "over";
    return "play";
  }

  render() {
    this.topbar(true);
    // New words (the language, or the rulebook of the table's rules arriving): a screen that
    // can repaint its words in place does so, keeping what is being typed into it and the
    // focus (the lobby lost a name typed as its rulebook came in, on a busy machine).
    if (this.panel && this.panel.relabel && this.kind === this.panelKind() && !this.finishing) {
      keepFocus(this.main, () => this.panel.relabel());
      return;
    }
    this.kind = null;
    this.update({ events: [], live: false });
  }

  /**
   * @param {Record<string, any>} detail
   */
  update(detail) {
    this.topbar();
    if (this.finishing) return;
    let kind = this.panelKind();
    if ((kind === "play" || kind === "over") && !game) {
      this.awaitGame(detail);
      if (this.kind !== null) return; // the screen shown stays until the game's screens are here
      kind = "loading";
    }
    if (
      kind === "over" &&
      this.kind === "play" &&
      detail.live &&
      !detail.finished &&
      this.panel.finish
    ) {
      // let everyone see the throw that ended the game before the ceremony
      this.finishing = true;
      this.panel.finish(detail).then(() => {
        this.finishing = false;
        this.update({ events: [], live: true, finished: true });
      });
      return;
    }
    if (kind !== this.kind) {
      if (this.panel && this.panel.destroy) this.panel.destroy();
      this.kind = kind;
      this.panel = this.makePanel(kind, detail);
      mount(this.main, this.panel.el);
      document.body.dataset.screen = kind;
      showFromTop(this.main);
      if (kind === "lobby") this.prefetchGame();
      return;
    }
    if (this.panel.update) this.panel.update(detail);
  }

  /**
   * The game's screens are needed now: show them when they are here.
   * @param {any} detail
   */
  awaitGame(detail) {
    if (this.waiting) return;
    this.waiting = true;
    loadGame().then(
      () => {
        this.waiting = false;
        if (!this.destroyed) this.update(detail);
      },
      (err) => {
        this.waiting = false;
        console.warn("game screens not loaded", err);
        toast(t("app.view_not_loaded"), { kind: "error" });
      },
    );
  }

  /**
   * A lobby is on screen: fetch the game's screens while people take their seats, behind what
   * the lobby still asks for (its rulebook), so that the start of the game does not wait.
   */
  prefetchGame() {
    if (game || this.prefetching) return;
    this.prefetching = true;
    // a failure is left for later: the game's screens are fetched again when they are needed
    const later = () =>
      setTimeout(() => whenIdle(() => loadGame().catch(() => {})), GAME_PREFETCH_DELAY_MS);
    const st = /** @type {import("./protocol.js").TableState} */ (this.session.state); // in the lobby
    loadRulebook(st.rules).then(later, later);
  }

  /**
   * @param {string} kind
   * @param {Record<string, any>} detail
   */
  makePanel(kind, detail) {
    const s = this.session;
    switch (kind) {
      case "lobby":
        return new LobbyPanel(s, this.ctx);
      case "play":
        return new /** @type {Game} */ (game).PlayPanel(s, this.ctx); // loaded before play
      case "over":
        return new /** @type {Game} */ (game).EndPanel(s, this.ctx, { live: detail.live });
      case "gone":
        return {
          el: h(
            "section",
            { class: "card center-card" },
            h("h1", { class: "title" }, t("table.not_found", { code: s.code })),
            h("p", {}, t("table.not_found_hint")),
            h("a", { href: "/", "data-link": "", class: "btn btn-primary" }, t("nav.home")),
          ),
        };
      default:
        return {
          el: h(
            "section",
            { class: "center-card loading", "aria-busy": "true" },
            h("div", { class: "boot-moon", "aria-hidden": "true" }),
            h("p", {}, t("table.connecting", { code: s.code })),
          ),
        };
    }
  }
}
