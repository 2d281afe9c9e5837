// DOM building without innerHTML: every piece of text goes through textContent or a text node,
// so names typed by players can never become markup.

const SVG_NS = "http://www.w3.org/2000/svg";

function append(el, child) {
  if (child === null || child === undefined || child === false) return;
  if (Array.isArray(child)) {
    for (const c of child) append(el, c);
  } else if (child instanceof Node) {
    el.appendChild(child);
  } else {
    el.appendChild(document.createTextNode(String(child)));
  }
}

function setAttrs(el, attrs) {
  if (!attrs) return;
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") {
      el.setAttribute("class", Array.isArray(value) ? value.filter(Boolean).join(" ") : value);
    } else if (key === "style" && typeof value === "object") {
      for (const [prop, v] of Object.entries(value)) el.style.setProperty(prop, v);
    } else if (key === "dataset") {
      for (const [k, v] of Object.entries(value)) el.dataset[k] = v;
    } else if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2).toLowerCase(), value);
    } else if (key === "value" && "value" in el) {
      el.value = value;
    } else if (key === "checked" || key === "selected" || key === "disabled") {
      el[key] = Boolean(value);
      if (value) el.setAttribute(key, "");
    } else {
      el.setAttribute(key, value === true ? "" : String(value));
    }
  }
}

/** h("button", {class: "big", onclick}, "掷骰子") — an element with attributes and children. */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

/** An SVG element: s("circle", {cx: 1, cy: 2, r: 3}). */
export function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  if (attrs) {
    for (const [key, value] of Object.entries(attrs)) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") el.setAttribute("class", value);
      else if (key.startsWith("on") && typeof value === "function") {
        el.addEventListener(key.slice(2).toLowerCase(), value);
      } else el.setAttribute(key, String(value));
    }
  }
  append(el, children);
  return el;
}

/** Replace every child of `el` with `children`. */
export function mount(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

export function $(selector, root = document) {
  return root.querySelector(selector);
}

export function $$(selector, root = document) {
  return Array.from(root.querySelectorAll(selector));
}

/** Entrances already played on this page, by key (see enterOnce). */
const entered = new Set();

/**
 * A seal (or a winner's name) rises in once: its CSS entrance would play again each time its
 * screen is painted (a re-inserted or re-created element starts its animation anew). The
 * element is marked `is-entered` (no animation) once its entrance has played; with a `key`,
 * a later element of the same key (the screen built again) starts out entered.
 * @param {HTMLElement} el
 * @param {string | null} [key]
 */
export function enterOnce(el, key = null) {
  if (key !== null && entered.has(key)) {
    el.classList.add("is-entered");
    return el;
  }
  if (key !== null) entered.add(key);
  el.addEventListener("animationend", () => el.classList.add("is-entered"), { once: true });
  return el;
}

/** Whether the user asked the system for less motion. */
export function reducedMotion() {
  return window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Random URL-safe characters from the CSPRNG (available without a secure context). */
export function randomId(length = 16) {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  const bytes = new Uint8Array(length);
  crypto.getRandomValues(bytes);
  let out = "";
  for (const b of bytes) out += alphabet[b % alphabet.length];
  return out;
}

/** Save a Blob as a file with the given name. */
export function download(blob, filename) {
  const url = URL.createObjectURL(blob);
  const a = h("a", { href: url, download: filename, hidden: true });
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/**
 * A static file's content-hashed URL, from the page's import map (bobing/web/assets.py puts
 * every file there): cached for good, and preloaded by that name. The plain name where the
 * browser has no import.meta.resolve.
 * @param {string} path such as "/i18n/en.json"
 * @returns {string}
 */
export function staticUrl(path) {
  try {
    return import.meta.resolve(path);
  } catch {
    return path;
  }
}

/** @type {Map<string, Promise<void>>} */
const sheets = new Map();

/**
 * Add a stylesheet only some views use (once), after the page's own: resolves when it applies,
 * so a view drawn then is never seen unstyled.
 * @param {string} path such as "/css/events.css"
 * @returns {Promise<void>}
 */
export function stylesheet(path) {
  if (!sheets.has(path)) {
    const link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = staticUrl(path);
    const loaded = new Promise((resolve, reject) => {
      link.onload = () => resolve();
      link.onerror = () => {
        sheets.delete(path);
        link.remove();
        reject(new Error(`stylesheet ${path} not loaded`));
      };
    });
    sheets.set(path, /** @type {Promise<void>} */ (loaded));
    document.body.append(link);
  }
  return sheets.get(path);
}
