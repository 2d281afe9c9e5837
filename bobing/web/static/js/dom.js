// DOM building without innerHTML: every piece of text goes through textContent or a text node,
// so names typed by players can never become markup.

const SVG_NS = "http://www.w3.org/2000/svg";

/**
 * What h, s and mount take as children: nodes, text (numbers too), nothing (null, undefined,
 * false are skipped) and arrays of these.
 * @typedef {Node | string | number | boolean | null | undefined | ChildList} Child
 * @typedef {Array<Child>} ChildList
 */

/**
 * Attributes for h and s: "class" (a string or a list), "style" and "dataset" (objects),
 * "on…" listeners, "value", boolean properties; null, undefined and false are left out.
 * @typedef {Record<string, any>} Attrs
 */

/**
 * @param {Node} el
 * @param {Child} child
 */
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

/**
 * @param {HTMLElement} el
 * @param {Attrs | null | undefined} attrs
 */
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
      /** @type {HTMLInputElement} */ (el).value = value;
    } else if (key === "checked" || key === "selected" || key === "disabled") {
      /** @type {any} */ (el)[key] = Boolean(value);
      if (value) el.setAttribute(key, "");
    } else {
      el.setAttribute(key, value === true ? "" : String(value));
    }
  }
}

/**
 * h("button", {class: "big", onclick}, "掷骰子") — an element with attributes and children.
 * @template {string} K
 * @param {K} tag
 * @param {Attrs | null} [attrs]
 * @param {...Child} children
 * @returns {any}
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, children);
  return /** @type {any} */ (el);
}

/**
 * An SVG element: s("circle", {cx: 1, cy: 2, r: 3}).
 * @param {string} tag
 * @param {Attrs | null} [attrs]
 * @param {...Child} children
 * @returns {SVGElement}
 */
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

/**
 * Replace every child of `el` with `children`.
 * @template {Element} E
 * @param {E} el
 * @param {...Child} children
 * @returns {E}
 */
export function mount(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/**
 * @param {string} selector
 * @param {ParentNode} [root]
 * @returns {HTMLElement | null}
 */
export function $(selector, root = document) {
  return root.querySelector(selector);
}

/**
 * @param {string} selector
 * @param {ParentNode} [root]
 * @returns {HTMLElement[]}
 */
export function $$(selector, root = document) {
  return Array.from(root.querySelectorAll(selector));
}

/**
 * The element `id` names, which the page or the view has drawn: an Error naming it if absent.
 * @param {string} id
 * @returns {HTMLElement}
 */
export function byId(id) {
  const el = document.getElementById(id);
  if (!el) throw new Error(`no element #${id}`);
  return el;
}

/**
 * `value` when it is there: an Error saying `what` is missing when it is null or undefined
 * (for what the page or the view has surely drawn).
 * @template T
 * @param {T | null | undefined} value
 * @param {string} what
 * @returns {T}
 */
export function need(value, what) {
  if (value === null || value === undefined) throw new Error(`${what} is missing`);
  return value;
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

/**
 * @param {number} ms
 * @returns {Promise<void>}
 */
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

/**
 * Save a Blob as a file with the given name.
 * @param {Blob} blob
 * @param {string} filename
 */
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
    const loaded = new Promise(
      /** @param {(value?: void) => void} resolve */ (resolve, reject) => {
        link.onload = () => resolve();
        link.onerror = () => {
          sheets.delete(path);
          link.remove();
          reject(new Error(`stylesheet ${path} not loaded`));
        };
      },
    );
    sheets.set(path, /** @type {Promise<void>} */ (loaded));
    document.body.append(link);
  }
  return /** @type {Promise<void>} */ (sheets.get(path));
}
