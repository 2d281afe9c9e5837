// The app: language, routes, and the one table session a page follows.
//   /                 home: create a table or join one by code
//   /rules[/PRESET]   a preset's rules in words
//   /t/CODE           the table (lobby → play → ceremony), #play=TOKEN adds a shared-device token,
//                     #host=TOKEN the host's (an event's 组长 link)
//   /t/CODE/tv        the big screen (read-only)
//   /t/CODE/rules     the table's rules in words
//   /odds[/PRESET], /t/CODE/odds   规则与概率: the odds, how long a game takes, the charts
//   /e/new[?from=CODE]  create an event (many tables); from last year's
//   /e/CODE           the organiser's dashboard (#o=TOKEN adds the organiser's token)
//   /e/CODE/hall      the hall view for a projector; /e/CODE/cards the printable table cards
//   /e/CODE/t/N       claim your seat at table N (#name=…&key=… a seat's own link, the card's QR);
//                     /e/CODE/results who takes home what

import { $, byId, mount, h, need, stylesheet } from "./dom.js";
import { detectLang, setLang, onLangChange, t, lang } from "./i18n.js";
import { onRulebook } from "./rulebook.js";
import { loadLimits } from "./limits.js";
import { normalizeCode, saveTable, saveEvent } from "./device_store.js";
import { TableSession } from "./session.js";
import { unlock } from "./sound.js";
import { TableView, gameReady, loadGame } from "./table.js";
import { renderNetbar, announce, toast } from "./ui.js";
import { attachSeats, takeSeatLink } from "./seats.js";

/**
 * @type {{ destroy: () => void; render: () => void; } | null}
 */
let view = null;
/**
 * @type {TableSession | null}
 */
let session = null;

/**
 * @param {string} path
 */
function parseRoute(path) {
  let m = path.match(/^\/e\/new\/?$/);
  if (m) return { name: "event_new", from: new URLSearchParams(location.search).get("from") };
  m = path.match(/^\/e\/([A-Za-z0-9]{4,12})(?:\/(hall|cards|results|t\/(\d{1,3})))?\/?$/);
  if (m) {
    const kind = m[2] ? (m[3] ? "event_claim" : `event_${m[2]}`) : "event_dashboard";
    return { name: kind, event: normalizeCode(m[1]), number: m[3] ? Number(m[3]) : null };
  }
  m = path.match(/^\/t\/([A-Za-z0-9]{4,12})\/?(tv|rules|odds)?\/?$/);
  if (m) return { name: m[2] || "table", code: normalizeCode(m[1]) };
  m = path.match(/^\/rules(?:\/([a-z_]+))?\/?$/);
  if (m) return { name: "rules", preset: m[1] || "traditional" };
  m = path.match(/^\/odds(?:\/([a-z_]+))?\/?$/);
  if (m) return { name: "odds", preset: m[1] || "traditional" };
  return { name: "home" };
}

/**
 * @param {string} code
 */
function takePlayToken(code) {
  // a shared-device link carries the play token in the fragment (never sent to the server);
  // an event's 组长 link carries the table's host token the same way
  const hash = new URLSearchParams(location.hash.slice(1));
  const play = hash.get("play");
  const host = hash.get("host");
  if (play) saveTable(code, { playToken: play });
  if (host) saveTable(code, { hostToken: host });
  // a seat handed to this phone: its one-time link is traded for our own token (seats.js)
  const seat = takeSeatLink(code, hash);
  if (play || host || seat)
    history.replaceState(history.state, "", location.pathname + location.search);
}

/**
 * @param {string} path
 * @param {{replace?: boolean}} [options]
 */
export function navigate(path, { replace = false } = {}) {
  if (replace) history.replaceState({}, "", path);
  else history.pushState({}, "", path);
  route();
  window.scrollTo(0, 0);
  byId("main").focus({ preventScroll: true });
}

/**
 * @param {string} code
 */
function takeOrganizerToken(code) {
  // the organiser's link carries the token in the fragment (never sent to the server)
  const hash = new URLSearchParams(location.hash.slice(1));
  const token = hash.get("o");
  if (token) {
    saveEvent(code, { organizerToken: token });
    history.replaceState(history.state, "", location.pathname + location.search);
  }
}

/** The event views' stylesheet: fetched with them, a table or the home page does not need it. */
const EVENT_STYLES = "/css/events.css";

/**
 * An event view's module, once its stylesheet applies too.
 * @param {() => Promise<any>} load
 */
function eventView(load) {
  return () => Promise.all([load(), stylesheet(EVENT_STYLES)]).then(([module]) => module);
}

/**
 * The views a guest opening a table does not need, fetched when their route is first opened
 * (the service worker keeps them for offline use like every other file): for each route, its
 * module and how its view is made. The home page's own page preloads its view
 * (bobing/web/assets.py, ROUTE_VIEWS), so it does not wait for it either.
 * @type {Record<string, [() => Promise<any>, (m: any, main: HTMLElement, r: Record<string, any>) => any]>}
 */
const LATER = {
  home: [() => import("./views/home.js"), (m, main) => new m.HomeView(main, { navigate })],
  tv: [() => import("./views/tv.js"), (m, main) => new m.TvView(main, session, { navigate })],
  rules: [
    () => import("./views/rules.js"),
    (m, main, r) => new m.RulesView(main, { session, preset: r.preset, navigate }),
  ],
  odds: [
    () => import("./views/odds.js"),
    (m, main, r) => new m.OddsView(main, { session, preset: r.preset, navigate }),
  ],
  event_new: [
    eventView(() => import("./views/event_new.js")),
    (m, main, r) =>
      new m.EventNewView(main, { navigate, from: r.from ? normalizeCode(r.from) : null }),
  ],
  event_dashboard: [
    eventView(() => import("./views/event_dash.js")),
    (m, main, r) => new m.EventDashboardView(main, { code: r.event, navigate }),
  ],
  event_hall: [
    eventView(() => import("./views/event_hall.js")),
    (m, main, r) => new m.EventHallView(main, { code: r.event, navigate }),
  ],
  event_cards: [
    eventView(() => import("./views/event_print.js")),
    (m, main, r) => new m.EventCardsView(main, { code: r.event, navigate }),
  ],
  event_claim: [
    eventView(() => import("./views/event_print.js")),
    (m, main, r) => new m.EventClaimView(main, { code: r.event, number: r.number, navigate }),
  ],
  event_results: [
    eventView(() => import("./views/event_print.js")),
    (m, main, r) => new m.EventResultsView(main, { code: r.event, navigate }),
  ],
};

/** Bumped by every route(): a view fetched for a route the user has since left is not shown. */
let routing = 0;

function route() {
  const r = parseRoute(location.pathname);
  const current = ++routing;
  if (r.event) takeOrganizerToken(r.event);
  if (view && view.destroy) view.destroy();
  view = null;
  if (r.code) {
    takePlayToken(r.code);
    if (!session || session.code !== r.code) {
      if (session) session.close();
      session = new TableSession(r.code);
      session.addEventListener("conn", (/** @type {CustomEvent} */ ev) =>
        renderNetbar(ev.detail.status, {
          attempt: ev.detail.attempt,
          onRetry: () =>
            need(need(session, "the table session").conn, "its connection").reconnectNow(),
        }),
      );
      session.addEventListener("delivered", (ev) => {
        const { detail } = /** @type {CustomEvent<{turn: number}>} */ (ev);
        const text = t("conn.delivered_late", { n: detail.turn });
        announce(text);
        toast(text);
      });
      attachSeats(session);
      // the table's life comes with the game's screens (table.js fetches them once the
      // lobby is complete); the big screen and the table's other pages want it at once
      const s = session;
      gameReady.then(({ attachTableLife }) => {
        attachTableLife(s, { navigate });
        if (s.state) s.emit({ events: [], live: false }); // the table as it is, to the late comer
      });
      if (r.name !== "table") loadGame().catch(() => {});
      session.start();
    }
  } else if (session) {
    session.close();
    session = null;
    renderNetbar(null);
  }
  const main = byId("main");
  if (r.name === "table")
    show(r, new TableView(main, /** @type {TableSession} */ (session), { navigate }));
  else {
    const [load, make] = LATER[r.name];
    load().then(
      (/** @type {any} */ module) => {
        if (current === routing) show(r, make(module, main, r));
      },
      (/** @type {any} */ err) => {
        if (current !== routing) return;
        console.warn("view not loaded", err);
        toast(t("app.view_not_loaded"), { kind: "error" });
      },
    );
  }
}

/**
 * @param {Record<string, any>} r
 * @param {TableView} made
 */
function show(r, made) {
  view = made;
  view.render();
  document.body.dataset.route = r.name;
}

// A read-only window for people debugging a table (and for the end-to-end tests).
/** @type {any} */ (window).bobing = Object.freeze({
  get state() {
    return session ? session.state : null;
  },
  get connection() {
    return session ? session.status : null;
  },
  get roles() {
    return session ? session.roles.slice() : [];
  },
  /** What this device saw, as the fairness card saves it (bobing verify --seen). */
  get seen() {
    return session ? session.seenReport() : null;
  },
});

async function boot() {
  // every form's bounds are the server's (limits.js): asked beside the catalogue, not after it
  await Promise.all([
    setLang(detectLang()),
    loadLimits().catch((err) => console.warn("limits not loaded", err)),
  ]);
  document.addEventListener("click", (ev) => {
    unlock();
    const target = /** @type {Element} */ (ev.target);
    const a = /** @type {HTMLAnchorElement | null} */ (
      target.closest && target.closest("a[data-link]")
    );
    if (a && a.origin === location.origin && !ev.metaKey && !ev.ctrlKey && ev.button === 0) {
      ev.preventDefault();
      navigate(a.pathname + a.search + a.hash);
    }
  });
  window.addEventListener("popstate", route);
  onLangChange(() => {
    document.title = t("app.title");
    followLang();
    if (view) view.render();
  });
  onRulebook(() => {
    if (view) view.render();
  });
  document.title = t("app.title");
  followLang();
  route();
  offlineReady();
  insecureNote();
}

/** On plain HTTP (a LAN server), say what phones lose and what to do instead. */
function insecureNote() {
  const note = $("#secure-note");
  if (!note || window.isSecureContext) return;
  const paint = () =>
    mount(
      note,
      h(
        "details",
        {},
        h("summary", {}, t("secure.title")),
        h(
          "ul",
          {},
          ["shake", "share", "clipboard", "offline"].map((k) => h("li", {}, t(`secure.${k}`))),
        ),
      ),
    );
  note.hidden = false;
  paint();
  onLangChange(paint);
}

/** The manifest (the home-screen name) follows the UI's language. */
function followLang() {
  const manifest = /** @type {HTMLLinkElement | null} */ (
    document.querySelector('link[rel="manifest"]')
  );
  if (manifest) manifest.href = `/manifest.webmanifest?lang=${encodeURIComponent(lang())}`;
}

/** The service worker (sw.js) keeps the app for a reload without a network; HTTPS only. */
function offlineReady() {
  if (!("serviceWorker" in navigator) || !window.isSecureContext) return;
  const register = () =>
    navigator.serviceWorker.register("/sw.js").catch(() => {
      // no worker: the app works as before, online only
    });
  if (document.readyState === "complete") register();
  else window.addEventListener("load", register, { once: true });
}

boot().catch((err) => {
  mount(byId("main"), h("p", { class: "fatal" }, String(err && err.message)));
  throw err;
});
