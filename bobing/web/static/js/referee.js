// The referee's pad for real dice: tap six faces (or 跳猴), see what they make, confirm.
// Keys: 1-6 add a face, Backspace removes one, Escape clears, Enter confirms.
//
// 拍照识别: a photo of the bowl is read by the server (POST /api/tables/{code}/read-dice); its
// faces fill the slots, each die's box is drawn over the photo and the unsure ones are marked.
// A tap on a die (in the photo or its slot) picks it, and the next face key changes it. Nothing
// is thrown until the 组长 confirms, as with typed faces.
//
// A referee does not wait for the screen: keys typed after 开始博饼 while the start is on its
// way belong to the first throw. The lobby's start pad hands them over (handOver) and the
// game's pad, made when the start arrives, takes them (see `carried`).

import { h, mount } from "./dom.js";
import { t } from "./i18n.js";
import { dieSvg } from "./dice.js";
import { photoUnsureBelow } from "./limits.js";
import { shrinkPhoto } from "./photo.js";
import { classify, handName, why, effect } from "./rulebook.js";
import { errorText, icon } from "./ui.js";

const CARRY_MS = 30_000;
/** Keys typed for the first throw between 开始博饼 and the game's pad: open while collecting. */
const carried = { open: false, since: 0, keys: /** @type {string[]} */ ([]) };
const PAD_KEY = /^([1-6]|Backspace|Escape|Enter)$/;
/** Problems whose detail is the reader's own sentence (why this photo), in the user's language. */
const PHOTO_PROBLEMS = new Set(["invalid_photo", "unsupported_image"]);

/**
 * One die read from a photo (the JSON of `bobing read-dice --json`, one photo).
 * @typedef {{face: number, box: number[], confidence: number}} ReadDie
 * @typedef {{dice: ReadDie[], warnings: string[], photo_id?: string | null}} Reading
 *   `photo_id`: a table that keeps photos kept this one until the throw names it
 */

export class RefereePad {
  /**
   * @param {{count?: number, rules: object, onConfirm: (faces: number[]|null, photoId: string|null) => Promise<void>, allowTiaohou?: boolean, title?: string, readPhoto?: ((photo: Blob) => Promise<Reading>) | null}} opts
   */
  constructor({ count = 6, rules, onConfirm, allowTiaohou = true, title = "", readPhoto = null }) {
    this.count = count;
    this.readPhoto = count === 6 ? readPhoto : null;
    /** @type {{url: string, dice: ReadDie[], slots: number[], unsure: Set<number>, photoId: string | null} | null} */
    this.reading = null;
    /** the slot a tap picked: the next face key changes it */
    this.selected = /** @type {number | null} */ (null);
    this.photoBusy = false;
    this.photoNote = /** @type {string} */ ("");
    this.rules = rules;
    this.onConfirm = onConfirm;
    this.allowTiaohou = allowTiaohou;
    /** @type {number[]} */
    this.faces = [];
    this.tiaohou = false;
    this.busy = false;
    // keys typed while an entry is being sent wait here (in order) for the next throw
    /**
     * @type {any[]}
     */
    this.ahead = [];
    this.aheadTiaohou = false;
    this.aheadConfirm = false;
    this.slots = h("div", { class: "ref-slots", role: "group", "aria-label": t("ref.slots") });
    this.preview = h("div", { class: "ref-preview", "aria-live": "polite" });
    this.confirmBtn = h(
      "button",
      {
        type: "button",
        class: "btn btn-primary btn-block ref-confirm",
        onclick: () => this.confirm(),
      },
      t("ref.confirm"),
    );
    this.tiaohouBtn = allowTiaohou
      ? h(
          "button",
          {
            type: "button",
            class: "btn btn-ghost ref-tiaohou",
            "aria-pressed": "false",
            onclick: () => this.toggleTiaohou(),
          },
          t("ref.tiaohou"),
        )
      : null;
    const keys = [1, 2, 3, 4, 5, 6].map((face) =>
      h(
        "button",
        {
          type: "button",
          class: `ref-key${face === 1 || face === 4 ? " ref-key-red" : ""}`,
          "aria-label": t("ref.add_face", { face }),
          dataset: { face: String(face) },
          onclick: () => this.add(face),
        },
        dieSvg(face, { label: false }),
        h("span", { class: "ref-key-num", "aria-hidden": "true" }, String(face)),
      ),
    );
    this.photoView = h("div", { class: "ref-photo", "aria-live": "polite" });
    this.photoInput = this.readPhoto
      ? h("input", {
          type: "file",
          accept: "image/*",
          capture: "environment",
          class: "sr-only ref-photo-input",
          onchange: () => this.photoChosen(),
        })
      : null;
    this.photoLabel = h("span", {}, t("ref.photo"));
    this.photoBtn = this.photoInput
      ? h(
          "label",
          { class: "btn btn-ghost btn-block ref-photo-btn" },
          icon("camera"),
          this.photoLabel,
          this.photoInput,
        )
      : null;
    this.el = h(
      "section",
      { class: "card ref-pad", "aria-label": title || t("ref.title") },
      // h2: on the play page it follows the page's h1 (in the lobby, the start card's h2)
      h("h2", { class: "card-title" }, title || t("ref.title")),
      h("p", { class: "hint" }, t(count === 2 ? "ref.hint_two" : "ref.hint")),
      this.photoView,
      this.slots,
      this.photoBtn,
      h("div", { class: "ref-keys" }, keys),
      h(
        "div",
        { class: "ref-tools" },
        h(
          "button",
          {
            type: "button",
            class: "btn btn-ghost ref-back",
            "aria-label": `${t("ref.backspace_short")} · ${t("ref.backspace")}`,
            onclick: () => this.back(),
          },
          icon("backspace"),
          h("span", {}, t("ref.backspace_short")),
        ),
        h(
          "button",
          { type: "button", class: "btn btn-ghost ref-clear", onclick: () => this.clear() },
          t("ref.clear"),
        ),
        this.tiaohouBtn,
      ),
      this.preview,
      this.confirmBtn,
    );
    this.onKey = (/** @type {any} */ ev) => this.key(ev);
    document.addEventListener("keydown", this.onKey);
    this.diverting = false;
    this.paint();
    if (count === 6 && carried.open) {
      const keys = Date.now() - carried.since < CARRY_MS ? carried.keys : [];
      carried.open = false;
      carried.keys = [];
      for (const key of keys) this.press(key, "");
    }
  }

  /** The start was asked for: keys typed from now on are the first throw's (a start pad). */
  handOver() {
    this.diverting = true;
    carried.open = true;
    carried.since = Date.now();
    carried.keys = [];
  }

  /** The start failed: this pad takes its keys again, and what was carried is dropped. */
  handBack() {
    this.diverting = false;
    carried.open = false;
    carried.keys = [];
  }

  destroy() {
    document.removeEventListener("keydown", this.onKey);
    this.dropReading();
  }

  // ---- 拍照识别 ------------------------------------------------------------------------------

  /** A photo was chosen (or taken): read it, and fill the slots with what it shows. */
  async photoChosen() {
    const input = this.photoInput;
    const file = input && input.files && input.files[0];
    if (!input || !file || !this.readPhoto || this.busy || this.photoBusy) return;
    input.value = ""; // the same photo may be chosen again
    this.photoBusy = true;
    this.photoNote = t("ref.photo_reading");
    this.paint();
    try {
      const photo = await shrinkPhoto(file);
      this.showReading(photo, await this.readPhoto(photo));
    } catch (err) {
      const e = /** @type {{code?: string, detail?: string}} */ (err);
      this.photoNote = (e && PHOTO_PROBLEMS.has(e.code || "") && e.detail) || errorText(err);
    } finally {
      this.photoBusy = false;
      this.paint();
    }
  }

  /**
   * The reading of ``photo`` on the pad: six dice (the surest, if it shows more) in the slots.
   * @param {Blob} photo
   * @param {Reading} reading
   */
  showReading(photo, reading) {
    this.dropReading();
    const dice = reading.dice;
    let slots = dice.map((_, i) => i);
    if (dice.length > this.count) {
      const surest = slots.slice().sort((a, b) => dice[b].confidence - dice[a].confidence);
      const kept = new Set(surest.slice(0, this.count));
      slots = slots.filter((i) => kept.has(i));
    }
    const below = photoUnsureBelow();
    const unsure = new Set();
    slots.forEach((die, slot) => {
      if (dice[die].confidence < below) unsure.add(slot);
    });
    const photoId = reading.photo_id || null;
    this.reading = { url: URL.createObjectURL(photo), dice, slots, unsure, photoId };
    this.faces = slots.map((i) => dice[i].face);
    this.tiaohou = false;
    this.selected = null;
    const n = dice.length;
    this.photoNote =
      n < this.count
        ? t("ref.photo_fewer", { n })
        : n > this.count
          ? t("ref.photo_more", { n })
          : t("ref.photo_check");
  }

  dropReading() {
    if (this.reading) URL.revokeObjectURL(this.reading.url);
    this.reading = null;
    this.selected = null;
  }

  /**
   * A tap on a die read from the photo (or its slot): the next face key changes it.
   * @param {number | null} slot
   */
  pick(slot) {
    if (this.busy || /** @type {number} */ (slot) >= this.faces.length) return; // null: 0 >= length
    this.selected = this.selected === slot ? null : slot;
    this.paint();
  }

  paintPhoto() {
    if (this.photoLabel) {
      this.photoLabel.textContent = t(this.reading ? "ref.photo_again" : "ref.photo");
    }
    if (this.photoBtn) this.photoBtn.classList.toggle("is-busy", this.photoBusy);
    if (this.photoInput) this.photoInput.disabled = this.photoBusy || this.busy;
    const note = this.photoNote
      ? h(
          "p",
          {
            class: `hint ref-photo-note${this.reading && this.reading.dice.length !== this.count ? " is-warning" : ""}`,
          },
          this.selected !== null ? t("ref.photo_pick", { n: this.selected + 1 }) : this.photoNote,
        )
      : null;
    const reading = this.reading;
    if (!reading) {
      mount(this.photoView, note);
      return;
    }
    const img = h("img", { class: "ref-photo-img", src: reading.url, alt: t("ref.photo_alt") });
    const marks = h("div", { class: "ref-photo-marks" });
    const place = () => {
      const width = img.naturalWidth || 1;
      const height = img.naturalHeight || 1;
      const buttons = reading.dice.map((die, index) => {
        const slot = reading.slots.indexOf(index);
        const [x, y, w, hh] = die.box;
        const face = slot >= 0 ? this.faces[slot] : die.face;
        const unsure = slot >= 0 && reading.unsure.has(slot);
        const mark = h(
          "button",
          {
            type: "button",
            class: [
              "ref-photo-die",
              unsure && "is-unsure",
              slot < 0 && "is-extra",
              slot >= 0 && slot === this.selected && "is-selected",
            ],
            dataset: { slot: String(slot) },
            "aria-label": t(unsure ? "ref.photo_die_unsure" : "ref.photo_die", {
              n: slot + 1,
              face: face || "?",
            }),
            disabled: slot < 0,
            style: {
              left: `${(100 * x) / width}%`,
              top: `${(100 * y) / height}%`,
              width: `${(100 * w) / width}%`,
              height: `${(100 * hh) / height}%`,
            },
            onclick: () => this.pick(slot),
          },
          h("span", { class: "ref-photo-face" }, String(face || "?")),
        );
        return mark;
      });
      mount(marks, buttons);
    };
    if (img.complete && img.naturalWidth) place();
    else img.addEventListener("load", place, { once: true });
    mount(this.photoView, h("figure", { class: "ref-photo-frame" }, img, marks), note);
  }

  /**
   * @param {Record<string, any>} ev
   */
  key(ev) {
    if (!this.el.isConnected || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (document.querySelector("dialog[open]")) return; // keys belong to the open question
    const named = (ev.target && ev.target.tagName) || "";
    if (["INPUT", "TEXTAREA", "SELECT"].includes(named)) return;
    // A disabled button takes no Enter: 开始博饼, clicked and so disabled until the start is
    // in, keeps the focus until the browser moves it (soon, but not before every key), and
    // the Enter typed meanwhile is the first throw's.
    const tag = named === "BUTTON" && ev.target.disabled ? "" : named;
    if (this.diverting) {
      if (carried.open && PAD_KEY.test(ev.key) && !(ev.key === "Enter" && tag === "BUTTON")) {
        carried.keys.push(ev.key);
        ev.preventDefault();
      }
      return;
    }
    if (this.press(ev.key, tag)) ev.preventDefault();
  }

  /**
   * One key for this pad (``tag``: the focused element's, where a key was typed); whether
   * it was taken.
   * @param {string} key
   * @param {string} tag
   */
  press(key, tag) {
    if (/^[1-6]$/.test(key)) {
      this.add(Number(key));
      return true;
    }
    if (key === "Backspace") {
      this.back();
      return true;
    }
    if (key === "Escape") {
      this.clear();
      return false;
    }
    if (key === "Enter" && tag !== "BUTTON") {
      if (this.busy && (this.aheadTiaohou || this.ahead.length === this.count)) {
        this.aheadConfirm = true; // sent as soon as the previous entry is in
        this.paint();
        return true;
      }
      if (this.ready()) {
        this.confirm();
        return true;
      }
    }
    return false;
  }

  /**
   * @param {number} face
   */
  add(face) {
    if (this.busy) {
      this.aheadTiaohou = false;
      if (this.ahead.length < this.count) this.ahead.push(face);
      this.paint();
      return;
    }
    if (this.selected !== null && this.selected < this.faces.length) {
      // a die picked on the photo: this face corrects it (the referee has looked at it)
      this.faces[this.selected] = face;
      if (this.reading) this.reading.unsure.delete(this.selected);
      this.selected = null;
      this.paint();
      return;
    }
    this.tiaohou = false;
    if (this.faces.length < this.count) this.faces.push(face);
    this.paint();
  }

  back() {
    if (this.busy) {
      this.ahead.pop();
      this.aheadConfirm = false;
      this.paint();
      return;
    }
    this.faces.pop();
    if (this.selected !== null && this.selected >= this.faces.length) this.selected = null;
    this.paint();
  }

  clear() {
    if (this.busy) {
      this.ahead = [];
      this.aheadTiaohou = false;
      this.aheadConfirm = false;
      this.paint();
      return;
    }
    this.faces = [];
    this.tiaohou = false;
    this.dropReading();
    this.photoNote = "";
    this.paint();
  }

  toggleTiaohou() {
    if (this.busy) {
      this.aheadTiaohou = !this.aheadTiaohou;
      if (this.aheadTiaohou) this.ahead = [];
      this.paint();
      return;
    }
    this.tiaohou = !this.tiaohou;
    if (this.tiaohou) this.faces = [];
    this.paint();
  }

  ready() {
    return !this.busy && (this.tiaohou || this.faces.length === this.count);
  }

  /**
   * @param {object} rules
   */
  setRules(rules) {
    this.rules = rules;
    this.paint();
  }

  paint() {
    const slots = [];
    // while an entry is being sent, the slots show what is typed for the next one
    const queued = this.busy && (this.ahead.length > 0 || this.aheadTiaohou);
    const shown = queued ? this.ahead : this.faces;
    this.slots.classList.toggle("is-queued", queued);
    const read = !queued && this.reading;
    for (let i = 0; i < this.count; i++) {
      const face = shown[i];
      const unsure = Boolean(read && face && read.unsure.has(i));
      slots.push(
        h(
          "span",
          {
            class: [
              "ref-slot",
              face && "is-filled",
              unsure && "is-unsure",
              !queued && i === this.selected && "is-selected",
            ],
            role: "img",
            "aria-label": face
              ? t(unsure ? "ref.photo_die_unsure" : "die.face", { face, n: i + 1 })
              : t("ref.empty_slot"),
            dataset: { slot: String(i), face: face ? String(face) : "" },
            onclick: read && face ? () => this.pick(i) : null,
          },
          face ? dieSvg(face, { label: false }) : null,
        ),
      );
    }
    mount(this.slots, slots);
    this.slots.classList.toggle("is-tiaohou", queued ? this.aheadTiaohou : this.tiaohou);
    if (this.tiaohouBtn) {
      this.tiaohouBtn.setAttribute("aria-pressed", String(this.tiaohou));
      this.tiaohouBtn.classList.toggle("is-on", this.tiaohou);
    }
    if (queued) {
      mount(
        this.preview,
        h(
          "span",
          { class: "hint ref-queued" },
          this.aheadConfirm
            ? t("ref.queued_confirm")
            : t("ref.queued", { n: this.aheadTiaohou ? 0 : this.count - this.ahead.length }),
        ),
      );
    } else if (this.tiaohou) {
      mount(
        this.preview,
        h("strong", { class: "ref-name" }, t("tiaohou")),
        h("span", { class: "ref-why" }, t("ref.tiaohou_effect")),
      );
    } else if (this.count === 6 && this.faces.length === 6) {
      const c = classify(this.faces, this.rules);
      mount(
        this.preview,
        h("strong", { class: "ref-name" }, handName(c)),
        h("span", { class: "ref-why" }, why(c)),
        h("span", { class: "ref-effect" }, effect(c)),
      );
    } else if (this.count === 2 && this.faces.length === 2) {
      mount(
        this.preview,
        h(
          "strong",
          { class: "ref-name" },
          t("ref.two_sum", {
            a: this.faces[0],
            b: this.faces[1],
            sum: this.faces[0] + this.faces[1],
          }),
        ),
      );
    } else {
      mount(
        this.preview,
        h("span", { class: "hint" }, t("ref.need", { n: this.count - this.faces.length })),
      );
    }
    this.confirmBtn.disabled = !this.ready();
    if (this.readPhoto) this.paintPhoto();
  }

  async confirm() {
    if (!this.ready()) return;
    this.busy = true;
    this.confirmBtn.disabled = true;
    this.confirmBtn.classList.add("is-busy");
    let sent = false;
    try {
      // the photo the faces were read from goes with them (kept as the throw's evidence)
      const photoId = this.reading ? this.reading.photoId : null;
      await this.onConfirm(this.tiaohou ? null : this.faces.slice(), photoId);
      sent = true;
    } catch {
      // the caller showed the error; keep the faces for a correction (and what was typed ahead)
    } finally {
      this.busy = false;
      this.confirmBtn.classList.remove("is-busy");
    }
    let again = false;
    if (sent) {
      this.dropReading();
      this.photoNote = "";
      this.faces = this.ahead.splice(0, this.count);
      this.tiaohou = this.aheadTiaohou;
      again = this.aheadConfirm && this.ready();
      this.ahead = [];
      this.aheadTiaohou = false;
      this.aheadConfirm = false;
    }
    this.paint();
    if (again && this.el.isConnected) await this.confirm();
  }
}
