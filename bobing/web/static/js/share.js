// The share card: an image of the result (the 状元's dice and name, the table, the top cakes,
// or at a ranked table the top places and their prizes) drawn on a canvas in the browser;
// shared through the system share sheet with the image where the browser can (navigator.share
// with files), saved as a PNG otherwise.

import { h, mount, download, need } from "./dom.js";
import { t } from "./i18n.js";
import { classify, handName, tierName } from "./rulebook.js";
import { cakes } from "./award.js";
import { icon, showError, toast } from "./ui.js";
import { TIERS } from "./protocol.js";
import { isRanked, rankingRows } from "./ranked.js";

const W = 1080;
const H = 1350;
const FONT =
  '"PingFang SC", "Hiragino Sans GB", "Noto Sans CJK SC", "Noto Sans SC", "Microsoft YaHei", system-ui, sans-serif';
const SERIF =
  '"Songti SC", "Noto Serif CJK SC", "Noto Serif SC", "STSong", "SimSun", Georgia, serif';
/** @type {Record<number, number[][]>} */
const PIPS = {
  1: [[0, 0]],
  2: [
    [-1, -1],
    [1, 1],
  ],
  3: [
    [-1, -1],
    [0, 0],
    [1, 1],
  ],
  4: [
    [-1, -1],
    [1, -1],
    [-1, 1],
    [1, 1],
  ],
  5: [
    [-1, -1],
    [1, -1],
    [0, 0],
    [-1, 1],
    [1, 1],
  ],
  6: [
    [-1, -1],
    [1, -1],
    [-1, 0],
    [1, 0],
    [-1, 1],
    [1, 1],
  ],
};

/**
 * @param {CanvasRenderingContext2D} ctx
 * @param {number} x
 * @param {number} y
 * @param {number} w
 * @param {number} h
 * @param {number} r
 */
function roundRect(ctx, x, y, w, h, r) {
  ctx.beginPath();
  ctx.moveTo(x + r, y);
  ctx.arcTo(x + w, y, x + w, y + h, r);
  ctx.arcTo(x + w, y + h, x, y + h, r);
  ctx.arcTo(x, y + h, x, y, r);
  ctx.arcTo(x, y, x + w, y, r);
  ctx.closePath();
}

/**
 * @param {CanvasRenderingContext2D} ctx
 * @param {number} x
 * @param {number} y
 * @param {number} size
 * @param {number} face
 */
function drawDie(ctx, x, y, size, face) {
  roundRect(ctx, x, y, size, size, size * 0.18);
  ctx.fillStyle = "#fbfaf5";
  ctx.fill();
  ctx.lineWidth = 3;
  ctx.strokeStyle = "#cfd4e2";
  ctx.stroke();
  const red = face === 1 || face === 4;
  const r = face === 1 ? size * 0.15 : size * 0.085;
  for (const [dx, dy] of PIPS[face] || []) {
    ctx.beginPath();
    ctx.arc(x + size / 2 + dx * size * 0.26, y + size / 2 + dy * size * 0.26, r, 0, Math.PI * 2);
    ctx.fillStyle = red ? "#c62d2f" : "#1b1f33";
    ctx.fill();
  }
}

/**
 * @param {CanvasRenderingContext2D} ctx
 * @param {string} text
 * @param {number} max
 * @param {number} size
 * @param {string} family
 */
function fit(ctx, text, max, size, family, weight = "900") {
  let s = size;
  do {
    ctx.font = `${weight} ${s}px ${family}`;
    s -= 4;
  } while (ctx.measureText(text).width > max && s > 20);
}

/**
 * Draw the share card of a finished table's state; returns the canvas.
 * @param {import("./protocol.js").TableState} state
 */
export function drawCard(state) {
  const canvas = document.createElement("canvas");
  canvas.width = W;
  canvas.height = H;
  const ctx = need(canvas.getContext("2d"), "a 2D canvas");
  const sky = ctx.createLinearGradient(0, 0, 0, H);
  sky.addColorStop(0, "#10163a");
  sky.addColorStop(1, "#2a1340");
  ctx.fillStyle = sky;
  ctx.fillRect(0, 0, W, H);
  // the moon
  const glow = ctx.createRadialGradient(W * 0.78, 190, 20, W * 0.78, 190, 260);
  glow.addColorStop(0, "rgba(246, 211, 124, 0.55)");
  glow.addColorStop(1, "rgba(246, 211, 124, 0)");
  ctx.fillStyle = glow;
  ctx.fillRect(0, 0, W, 520);
  ctx.beginPath();
  ctx.arc(W * 0.78, 190, 92, 0, Math.PI * 2);
  ctx.fillStyle = "#f6d37c";
  ctx.fill();
  ctx.textAlign = "center";
  ctx.textBaseline = "alphabetic";
  ctx.fillStyle = "#fff3cf";
  fit(ctx, state.name, W - 160, 54, FONT, "700");
  ctx.fillText(state.name, W / 2, 130);
  // a ranked table (RULES.md §8.2) has places and prizes, no 状元 cake: its top place instead
  const ranked = isRanked(state);
  const places = ranked ? rankingRows(state) : [];
  const z = ranked
    ? places.find((/** @type {Record<string, any>} */ row) => row.dice && row.unit) || null
    : state.result && state.result.zhuangyuan;
  const seal = ranked ? t("ranked.ceremony") : tierName("zhuangyuan");
  // the seal
  ctx.strokeStyle = "#f6d37c";
  ctx.lineWidth = 6;
  roundRect(ctx, W / 2 - 250, 300, 500, 170, 24);
  ctx.stroke();
  ctx.fillStyle = "#f6d37c";
  fit(ctx, seal, 440, 120, SERIF);
  ctx.fillText(seal, W / 2, 430);
  ctx.fillStyle = "#ffffff";
  const who = z ? z.player : t(ranked ? "ranked.nobody" : "end.no_winner");
  fit(ctx, who, W - 160, 110, SERIF);
  ctx.fillText(who, W / 2, 620);
  if (z && z.dice) {
    ctx.fillStyle = "#f6d37c";
    const hand = handName(classify(z.dice, state.rules));
    fit(ctx, hand, W - 160, 64, FONT, "800");
    ctx.fillText(hand, W / 2, 710);
    const size = 132;
    const gap = 20;
    const x0 = (W - (6 * size + 5 * gap)) / 2;
    z.dice
      .split("")
      .forEach((/** @type {any} */ f, /** @type {number} */ i) =>
        drawDie(ctx, x0 + i * (size + gap), 770, size, Number(f)),
      );
  }
  // the top of the table
  const holdings = (state.result && state.result.holdings) || {};
  const top = ranked
    ? places.slice(0, 3).map((/** @type {Record<string, any>} */ row) => ({
        name: row.player,
        what: row.unit ? row.unit.name : t("ranked.no_prize"),
      }))
    : (state.players || [])
        .map((/** @type {Record<string, any>} */ p) => ({
          name: p.name,
          n: cakes(holdings[p.name]),
        }))
        .sort(
          (/** @type {Record<string, any>} */ a, /** @type {Record<string, any>} */ b) => b.n - a.n,
        )
        .slice(0, 3)
        .map((/** @type {Record<string, any>} */ p) => ({
          name: p.name,
          what: t("share.cakes", { n: p.n }),
        }));
  ctx.font = `700 44px ${FONT}`;
  top.forEach((/** @type {Record<string, any>} */ p, /** @type {number} */ i) => {
    const y = 1020 + i * 66;
    ctx.textAlign = "left";
    ctx.fillStyle = "#fff3cf";
    ctx.fillText(`${i + 1}. ${p.name}`, 170, y);
    ctx.textAlign = "right";
    ctx.fillStyle = "#f6d37c";
    fit(ctx, p.what, W / 2 - 200, 44, FONT, "700");
    ctx.fillText(p.what, W - 170, y);
    ctx.font = `700 44px ${FONT}`;
  });
  ctx.textAlign = "center";
  ctx.fillStyle = "rgba(255, 243, 207, 0.75)";
  ctx.font = `500 34px ${FONT}`;
  const tiers = TIERS.filter((tier) => (state.rules.prizes || {})[tier]).length;
  ctx.fillText(
    t("share.footer", {
      code: state.code,
      date: new Date(state.created_at).toLocaleDateString(),
      tiers,
    }),
    W / 2,
    H - 70,
  );
  return canvas;
}

/**
 * @param {Record<string, any>} canvas
 */
function toBlob(canvas) {
  return new Promise((resolve, reject) =>
    canvas.toBlob(
      (/** @type {any} */ b) => (b ? resolve(b) : reject(new Error("no image"))),
      "image/png",
    ),
  );
}

/**
 * Share the card (system sheet with the image where possible), else save it.
 * @param {import("./protocol.js").TableState} state
 * @param {HTMLCanvasElement} canvas
 */
export async function shareCard(state, canvas) {
  const blob = await toBlob(canvas);
  const name = `bobing-${state.code}.png`;
  const file = typeof File === "function" ? new File([blob], name, { type: "image/png" }) : null;
  if (file && navigator.canShare && navigator.canShare({ files: [file] }) && navigator.share) {
    try {
      await navigator.share({
        files: [file],
        title: state.name,
        text: t("share.text", { name: state.name }),
      });
      return "shared";
    } catch (err) {
      if (err && err.name === "AbortError") return "cancelled";
    }
  }
  download(blob, name);
  toast(t("share.saved"));
  return "saved";
}

/**
 * The end screen's share card: a preview of the image and a share (or save) button.
 * @param {import("./session.js").TableSession & Record<string, any>} session
 */
export function shareSection(session) {
  const preview = h("div", { class: "share-preview" });
  const section = h(
    "section",
    { class: "card share-card", "aria-labelledby": "share-title" },
    h("h2", { id: "share-title", class: "card-title" }, t("share.title")),
    preview,
  );
  const make = async () => {
    const st = /** @type {import("./protocol.js").TableState} */ (session.state); // over
    try {
      const canvas = drawCard(st);
      const img = h("img", {
        class: "share-img",
        alt: t(isRanked(st) ? "share.alt_ranked" : "share.alt", { name: st.name }),
        src: canvas.toDataURL("image/png"),
        width: W / 4,
        height: H / 4,
      });
      mount(
        preview,
        img,
        h(
          "button",
          {
            type: "button",
            class: "btn btn-primary share-btn",
            onclick: () => shareCard(st, canvas).catch(showError),
          },
          icon("share"),
          t(/** @type {any} */ (navigator).share ? "share.share" : "share.save"),
        ),
      );
    } catch (err) {
      showError(err);
    }
  };
  mount(
    preview,
    h(
      "button",
      { type: "button", class: "btn btn-ghost share-make", onclick: make },
      icon("share"),
      t("share.make"),
    ),
  );
  return section;
}
