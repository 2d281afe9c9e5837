// Shared pieces of the screens: the top bar, toasts, the screen-reader announcer, dialogs,
// icons, error messages.

import { h, s, mount, $, byId } from "./dom.js";
import { t, lang, setLang, LANGS, has } from "./i18n.js";
import { muted, setMuted, unlock } from "./sound.js";

// ---- icons (inline SVG, no font or emoji needed) ----------------------------------------------

/** @type {Record<string, string>} */
const ICONS = {
  sound: "M4 9h4l5-4v14l-5-4H4z M16 8.5a5 5 0 0 1 0 7 M18.5 6a8.5 8.5 0 0 1 0 12",
  mute: "M4 9h4l5-4v14l-5-4H4z M16 9l6 6 M22 9l-6 6",
  up: "M12 5l-6 7h4v7h4v-7h4z",
  down: "M12 19l6-7h-4V5h-4v7H6z",
  close: "M6 6l12 12 M18 6L6 18",
  copy: "M8 8h11v11H8z M5 16V5h11",
  share: "M12 3v12 M7 8l5-5 5 5 M5 13v7h14v-7",
  tv: "M3 5h18v12H3z M8 21h8 M12 17v4",
  book: "M4 4h6a3 3 0 0 1 3 3v13a2 2 0 0 0-2-2H4z M20 4h-6a3 3 0 0 0-3 3v13a2 2 0 0 1 2-2h7z",
  back: "M15 5l-7 7 7 7",
  shake: "M8 3h8v18H8z M4 8v8 M20 8v8 M11 18h2",
  download: "M12 4v11 M7 10l5 5 5-5 M5 20h14",
  check: "M5 12l5 5 9-10",
  pause: "M8 5v14 M16 5v14",
  play: "M7 5l12 7-12 7z",
  stop: "M6 6h12v12H6z",
  globe: "M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18 M3 12h18 M12 3c3 3 3 15 0 18 M12 3c-3 3-3 15 0 18",
  backspace: "M21 5H9l-6 7 6 7h12z M12 9l6 6 M18 9l-6 6",
  camera: "M3 8h4l2-3h6l2 3h4v11H3z M12 10a3.5 3.5 0 1 0 0 7a3.5 3.5 0 1 0 0-7",
  undo: "M9 14L4 9l5-5 M4 9h11a5 5 0 0 1 0 10h-4",
  lock: "M6 11h12v9H6z M9 11V8a3 3 0 0 1 6 0v3",
  tables: "M4 4h7v7H4z M13 4h7v7h-7z M4 13h7v7H4z M13 13h7v7h-7z",
};

/**
 * @param {string} name
 * @param {{label?: string | null}} [options]
 */
export function icon(name, { label = null } = {}) {
  return s(
    "svg",
    {
      viewBox: "0 0 24 24",
      class: `icon icon-${name}`,
      "aria-hidden": label ? null : "true",
      role: label ? "img" : null,
      "aria-label": label,
    },
    s("path", { d: ICONS[name] || "" }),
  );
}

// ---- the moon mark --------------------------------------------------------------------------

export function moonMark() {
  return s(
    "svg",
    { viewBox: "0 0 40 40", class: "moon-mark", "aria-hidden": "true" },
    s("circle", { cx: 20, cy: 20, r: 16, class: "moon-disc" }),
    s("circle", { cx: 14, cy: 15, r: 3, class: "moon-crater" }),
    s("circle", { cx: 25, cy: 24, r: 4.5, class: "moon-crater" }),
    s("circle", { cx: 23, cy: 12, r: 1.8, class: "moon-crater" }),
  );
}

// ---- announcer and toasts ----------------------------------------------------------------------

/**
 * Tell screen-reader users something (polite live region).
 * @param {string | null} text
 */
export function announce(text) {
  const el = $("#announcer");
  if (!el) return;
  el.textContent = "";
  // a fresh text node after clearing makes screen readers read repeated messages too
  setTimeout(() => {
    el.textContent = text;
  }, 30);
}

/**
 * @param {import("./dom.js").Child} text
 */
export function toast(text, { kind = "info", ms = 4200 } = {}) {
  const box = $("#toasts");
  if (!box) return;
  const item = h(
    "div",
    { class: `toast toast-${kind}`, role: kind === "error" ? "alert" : "status" },
    text,
  );
  box.appendChild(item);
  setTimeout(() => item.classList.add("toast-out"), ms);
  setTimeout(() => item.remove(), ms + 400);
}

/**
 * A human sentence for an API or command error, from its stable code.
 * @param {Record<string, any>} err
 */
export function errorText(err) {
  const code = err && err.code;
  const params = (err && err.params) || {};
  if (code && has(`error.${code}`)) return t(`error.${code}`, params);
  return (err && (err.detail || err.title || err.message)) || t("error.unknown");
}

/**
 * @param {Record<string, any>} err
 */
export function showError(err) {
  // errors stay longer than news: they are what a person must read and act on
  toast(errorText(err), { kind: "error", ms: 10000 });
}

// ---- dialogs ----------------------------------------------------------------------------------

/**
 * A modal yes/no question; resolves true when confirmed.
 * @param {{title: string, body: import("./dom.js").Child, yes: string, no?: string,
 *   danger?: boolean}} question
 * @returns {Promise<boolean>}
 */
export function confirmDialog({ title, body, yes, no = t("common.cancel"), danger = false }) {
  return new Promise((resolve) => {
    const dialog = h("dialog", { class: "dialog", "aria-labelledby": "dlg-title" });
    const close = (/** @type {boolean} */ value) => {
      dialog.close();
      dialog.remove();
      resolve(value);
    };
    mount(
      dialog,
      h("h2", { id: "dlg-title", class: "dialog-title" }, title),
      body ? h("p", { class: "dialog-body" }, body) : null,
      h(
        "div",
        { class: "dialog-actions" },
        h("button", { type: "button", class: "btn btn-ghost", onclick: () => close(false) }, no),
        h(
          "button",
          {
            type: "button",
            class: `btn ${danger ? "btn-danger" : "btn-primary"}`,
            onclick: () => close(true),
          },
          yes,
        ),
      ),
    );
    dialog.addEventListener("cancel", (/** @type {Record<string, any>} */ ev) => {
      ev.preventDefault();
      close(false);
    });
    document.body.appendChild(dialog);
    dialog.showModal();
    dialog.querySelector(".btn-primary, .btn-danger").focus();
  });
}

// ---- the top bar ------------------------------------------------------------------------------

/** @type {Record<string, string>} */
const LANG_LABEL = { "zh-Hans": "简体", "zh-Hant": "繁體", en: "EN" };

export function langPicker() {
  const select = h(
    "select",
    {
      class: "lang-select",
      "aria-label": t("top.language"),
      onchange: async (/** @type {{target: HTMLInputElement}} */ ev) => {
        await setLang(ev.target.value, { remember: true });
      },
    },
    LANGS.map((code) =>
      h("option", { value: code, selected: code === lang(), lang: code }, LANG_LABEL[code]),
    ),
  );
  return h("label", { class: "lang-picker" }, icon("globe"), select);
}

export function soundToggle() {
  const button = h("button", { type: "button", class: "icon-btn sound-toggle" });
  const paint = () => {
    const off = muted();
    mount(button, icon(off ? "mute" : "sound"));
    button.setAttribute("aria-pressed", String(!off));
    button.setAttribute("aria-label", off ? t("top.sound_off") : t("top.sound_on"));
    button.title = button.getAttribute("aria-label");
  };
  button.addEventListener("click", () => {
    setMuted(!muted());
    unlock();
    paint();
  });
  paint();
  return button;
}

/**
 * Draw the top bar: brand, an optional title (the table), the connection dot, sound, language.
 * `extra` are more buttons (links to the rules, the big screen …).
 * @param {{title?: import("./dom.js").Child, conn?: string | null,
 *   extra?: import("./dom.js").Child[]}} [options]
 */
export function renderTopbar({ title = null, conn = null, extra = [] } = {}) {
  const bar = byId("topbar");
  bar.classList.toggle("has-title", Boolean(title));
  mount(
    bar,
    h(
      "a",
      // the spoken name starts with the visible one (WCAG 2.5.3, label in name)
      {
        href: "/",
        class: "brand",
        "data-link": "",
        "aria-label": `${t("app.name")} · ${t("top.home")}`,
      },
      moonMark(),
      h("span", { class: "brand-name" }, t("app.name")),
    ),
    title ? h("span", { class: "topbar-title" }, title) : h("span", { class: "topbar-title" }),
    conn
      ? h("span", {
          class: `conn-dot conn-${conn}`,
          role: "img",
          "aria-label": t(`conn.${conn}`),
          title: t(`conn.${conn}`),
        })
      : null,
    ...extra,
    soundToggle(),
    langPicker(),
  );
}

/**
 * How long a first connection may take before the banner says so: it usually takes less, and a
 * banner that comes and goes at once only moves the page under the reader (the table's own
 * card says it is connecting, and the top bar's dot).
 */
const CONNECTING_BANNER_DELAY_MS = 1000;
/**
 * @type {number | null | undefined}
 */
let connectingBanner = null;

/**
 * The connection banner under the top bar: hidden while connected.
 * @param {string | null} status
 * @param {{attempt?: number, onRetry?: (() => void) | null}} [options]
 */
export function renderNetbar(status, { attempt = 0, onRetry = null } = {}) {
  const bar = $("#netbar");
  if (!bar) return;
  clearTimeout(connectingBanner ?? undefined);
  if (status === "connecting" && bar.hidden && navigator.onLine !== false) {
    connectingBanner = setTimeout(
      () => paintNetbar(bar, status, { attempt, onRetry }),
      CONNECTING_BANNER_DELAY_MS,
    );
    return;
  }
  paintNetbar(bar, status, { attempt, onRetry });
}

/**
 * @param {HTMLElement} bar
 * @param {string | null} status
 * @param {{attempt: number, onRetry: (() => void) | null}} options
 */
function paintNetbar(bar, status, { attempt, onRetry }) {
  if (!status || status === "open" || status === "closed") {
    bar.hidden = true;
    bar.replaceChildren();
    return;
  }
  bar.hidden = false;
  bar.dataset.status = status;
  const text =
    status === "gone"
      ? t("conn.gone")
      : navigator.onLine === false
        ? t("conn.offline")
        : status === "connecting"
          ? t("conn.connecting")
          : t("conn.lost", { attempt });
  mount(
    bar,
    h("span", { class: "netbar-spinner", "aria-hidden": "true" }),
    h("span", { class: "netbar-text" }, text),
    onRetry && status === "reconnecting"
      ? h(
          "button",
          { type: "button", class: "btn btn-small btn-ghost-light", onclick: onRetry },
          t("conn.retry_now"),
        )
      : null,
  );
}

/**
 * A small labelled stat chip.
 * @param {import("./dom.js").Child} label
 * @param {import("./dom.js").Child} value
 */
export function chip(label, value, cls = "") {
  return h(
    "span",
    { class: `chip ${cls}` },
    h("span", { class: "chip-label" }, label),
    h("span", { class: "chip-value" }, value),
  );
}

/**
 * Copy text to the clipboard (with a fallback for pages that are not a secure context).
 * @param {string} text
 */
export async function copyText(text) {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // fall back below
  }
  const area = h("textarea", { class: "sr-only", readonly: true }, text);
  document.body.appendChild(area);
  area.select();
  let ok;
  try {
    ok = document.execCommand("copy");
  } catch {
    ok = false;
  }
  area.remove();
  return ok;
}

/** A bar-chart icon (inline SVG, like ui.js's icons). */
export function chartIcon() {
  return s(
    "svg",
    { viewBox: "0 0 24 24", class: "icon icon-chart", "aria-hidden": "true" },
    s("path", { d: "M4 20h16 M7 20v-6 M12 20V8 M17 20v-9 M6 9l5-4 5 3 4-4" }),
  );
}

/** The top-bar button to 规则与概率 (/odds: the home page's bar). */
export function oddsNavLink(href = "/odds") {
  return h(
    "a",
    { href, "data-link": "", class: "icon-btn", "aria-label": t("nav.odds"), title: t("nav.odds") },
    chartIcon(),
  );
}

/**
 * The link from a rules page to 规则与概率 for the same rules.
 * @param {string} href
 */
export function oddsLink(href) {
  return h(
    "a",
    { href, "data-link": "", class: "odds-link" },
    chartIcon(),
    h("span", {}, t("odds.link")),
    h("span", { "aria-hidden": "true" }, "→"),
  );
}
