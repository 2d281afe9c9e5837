// @ts-check
// REST calls of docs/protocol.md. Problems (RFC 9457) become ApiError with the stable `code`.

import { lang } from "./i18n.js";

/**
 * A problem (RFC 9457) as the server sends it; every field may be missing.
 * @typedef {{code?: string, title?: string, detail?: string, params?: Record<string, unknown>}} Problem
 */

export class ApiError extends Error {
  /**
   * @param {Problem} problem
   * @param {number} status
   */
  constructor(problem, status) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.code = problem.code || (status === 0 ? "network" : "http");
    this.status = status;
    this.params = problem.params || {};
    this.title = problem.title || "";
    this.detail = problem.detail || "";
  }
}

/**
 * @param {string} method
 * @param {string} path
 * @param {{body?: unknown, bytes?: Blob, media?: string, token?: string | null, raw?: boolean}} [options]
 */
async function request(method, path, { body, bytes, media, token, raw = false } = {}) {
  /** @type {Record<string, string>} */
  const headers = { Accept: "application/json", "Accept-Language": lang() };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (bytes !== undefined) headers["Content-Type"] = media || "application/octet-stream";
  if (token) headers.Authorization = `Bearer ${token}`;
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: bytes !== undefined ? bytes : body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store",
    });
  } catch (err) {
    throw new ApiError({ code: "network", detail: String(err && err.message) }, 0);
  }
  if (!response.ok) {
    let problem;
    try {
      problem = await response.json();
    } catch {
      problem = {};
    }
    throw new ApiError(problem, response.status);
  }
  if (raw) return response;
  return response.status === 204 ? null : response.json();
}

/** Any REST call: `{body}` is sent as JSON, `{bytes}` (a File or Blob) as is; `{raw}` gives the Response. */
/**
 * @param {string} method
 * @param {string} path
 * @param {{body?: unknown, bytes?: Blob, token?: string | null, raw?: boolean}} [options]
 */
export function call(method, path, options = {}) {
  return request(method, path, options);
}

/**
 * GET a JSON resource (problems become ApiError).
 * @param {string} path
 */
export function getJson(path) {
  return request("GET", path);
}

const enc = encodeURIComponent;

export const api = {
  health: () => request("GET", "/api/health"),
  presets: () => request("GET", "/api/presets"),
  qr: (/** @type {string} */ text) => request("POST", "/api/qr", { body: { text } }),
  rulebook: (/** @type {object | string} */ rules, /** @type {string} */ language) =>
    request("POST", `/api/rulebook?lang=${enc(language)}`, { body: rules }),
  createTable: (/** @type {object} */ body) => request("POST", "/api/tables", { body }),
  table: (/** @type {string} */ code) => request("GET", `/api/tables/${enc(code)}`),
  join: (
    /** @type {string} */ code,
    /** @type {string} */ name,
    /** @type {string | null | undefined} */ token,
  ) => request("POST", `/api/tables/${enc(code)}/join`, { body: { name }, token }),
  events: (/** @type {string} */ code, after = 0, limit = 1000) =>
    request("GET", `/api/tables/${enc(code)}/events?after=${after}&limit=${limit}`),
  record: (/** @type {string} */ code) => request("GET", `/api/tables/${enc(code)}/record`),
  resultsCsv: (/** @type {string} */ code) =>
    request("GET", `/api/tables/${enc(code)}/results.csv`, { raw: true }),
  command: (
    /** @type {string} */ code,
    /** @type {object} */ command,
    /** @type {string | null | undefined} */ token,
  ) => request("POST", `/api/tables/${enc(code)}/commands`, { body: command, token }),
  /** The dice of a photo (a referee's): `{dice: [{face, box, confidence}], warnings}`. */
  readDice: (
    /** @type {string} */ code,
    /** @type {Blob} */ photo,
    /** @type {string | null | undefined} */ token,
  ) =>
    request("POST", `/api/tables/${enc(code)}/read-dice`, {
      bytes: photo,
      media: photo.type,
      token,
    }),
};

/** @type {any} */
let presetCache = null;

/** The rule presets (GET /api/presets), asked once a page. */
export async function loadPresets() {
  if (!presetCache) presetCache = await api.presets();
  return presetCache;
}
