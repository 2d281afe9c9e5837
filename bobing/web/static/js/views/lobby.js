// The lobby: invite (link and QR), seats, joining, and the host's start dice and start.

import { h, mount, randomId } from "../dom.js";
import { t } from "../i18n.js";
import { COMMAND, EVENT, MODE } from "../protocol.js";
import { limits } from "../limits.js";
import { qrSvg } from "../qrcode.js";
import { Bowl } from "../dice.js";
import { orderLine, tierName } from "../rulebook.js";
import { RefereePad } from "../referee.js";
import { icon, copyText, toast, showError, announce, errorText } from "../ui.js";
import { rattle, settle } from "../sound.js";
import { inviteUrl, loadInvite, loopbackOnly, forgetInviteWaiter } from "../invite.js";
import { BAD_NAME } from "../names.js";
import { keepFocus } from "../widgets/keep_focus.js";
import { isRanked, rankedSummary } from "../ranked.js";

/**
 * How many players this table seats (its rules' max_players).
 * @param {import("../protocol.js").TableState} state
 */
export function seatLimit(state) {
  return (state && state.rules && state.rules.max_players) || limits().default_players;
}

/**
 * @param {any} mode
 */
export function modeName(mode) {
  return t(`mode.${mode}`);
}

/**
 * @param {import("../protocol.js").TableState} state
 */
export function rulesSummary(state) {
  const rules = state.rules;
  const prizes = isRanked(state)
    ? rankedSummary(state)
    : ["zhuangyuan", "duitang", "sanhong", "sijin", "erju", "yixiu"]
        .filter((tier) => (rules.prizes || {})[tier])
        .map((tier) => `${tierName(tier)} ${rules.prizes[tier]}`)
        .join(" · ");
  const limits = [t("lobby.seats_max", { n: seatLimit(state) })];
  if (state.time_limit) limits.push(t("clock.lobby", { n: state.time_limit }));
  // guests are told before they sit down that their throws' photos are kept
  const photos = state.keep_photos
    ? h("p", { class: "photos-line" }, t("lobby.keeps_photos"))
    : null;
  return h(
    "div",
    { class: "rules-summary" },
    h(
      "p",
      {},
      h("span", { class: "label" }, t("rules.preset_label")),
      " ",
      t(`preset.${rules.preset}`),
    ),
    h(
      "p",
      { class: "order-line" },
      h("span", { class: "label" }, t("rules.order_label")),
      " ",
      orderLine(rules),
    ),
    h(
      "p",
      { class: "prize-line" },
      h(
        "span",
        { class: "label" },
        t(isRanked(state) ? "ranked.mode_label" : "rules.prizes_label"),
      ),
      " ",
      prizes,
    ),
    h("p", { class: "limits-line" }, limits.join(" · ")),
    photos,
  );
}

export class LobbyPanel {
  /**
   * @param {any} session
   * @param {any} ctx
   */
  constructor(session, ctx) {
    this.session = session;
    this.ctx = ctx;
    this.seats = h("ol", { class: "seat-list" });
    this.seatCount = h("span", { class: "seat-count" });
    this.startBox = h("div", { class: "start-box" });
    this.joinBox = h("div", { class: "join-box" });
    this.lockBox = h("div", { class: "lock-box" });
    this.phonelessBox = h("div", { class: "phoneless-box" });
    this.phonelessInput = h("input", {
      id: "phoneless-name",
      type: "text",
      maxlength: limits().max_name_length,
      autocomplete: "off",
      enterkeyhint: "done",
      class: "input",
      "data-fk": "phoneless-name",
    });
    this.bowl = new Bowl();
    this.pad = null;
    this.starting = false; // 开始博饼 was pressed and the server has not answered yet
    this.rolling = false;
    this.nameInput = h("input", {
      id: "join-name",
      type: "text",
      maxlength: limits().max_name_length,
      autocomplete: "nickname",
      enterkeyhint: "go",
      class: "input",
      "data-fk": "join-name",
    });
    this.thrower = null;
    this.throwerPicked = false;
    this.el = h("div", { class: "lobby" });
    // the invite address can arrive while a name is being typed: keep the focus where it is
    this.onInvite = () => keepFocus(this.el, () => this.build());
    loadInvite(this.onInvite);
    this.build();
  }

  destroy() {
    forgetInviteWaiter(this.onInvite);
    if (this.pad) this.pad.destroy();
  }

  /** New words (language, rulebook): paint again, keeping the inputs and what they hold. */
  relabel() {
    // the forms are kept across paints (so is their input); let them be made in the new words
    mount(this.joinBox);
    mount(this.phonelessBox);
    this.build();
  }

  build() {
    const st = this.session.state;
    const code = this.session.code;
    const url = inviteUrl(code);
    const isHost = this.session.isHost();
    const invite = h(
      "section",
      { class: "card invite", "aria-labelledby": "invite-title" },
      h("h2", { id: "invite-title", class: "card-title" }, t("lobby.invite")),
      h(
        "div",
        { class: "invite-row" },
        h("div", { class: "qr-box" }, qrSvg(url, { label: t("lobby.qr_label", { code }) })),
        h(
          "div",
          { class: "invite-info" },
          h("p", { class: "code-label" }, t("lobby.code")),
          h(
            "p",
            {
              class: "table-code",
              "aria-label": t("lobby.code_spoken", { code: code.split("").join(" ") }),
            },
            code,
          ),
          h("p", { class: "invite-url" }, url),
          loopbackOnly()
            ? h(
                "p",
                { class: "invite-warning", role: "alert" },
                h("span", { "aria-hidden": "true" }, "⚠ "),
                t("lobby.loopback_only"),
              )
            : null,
          h(
            "div",
            { class: "btn-row" },
            h(
              "button",
              { type: "button", class: "btn btn-small btn-ghost", onclick: () => this.copy(url) },
              icon("copy"),
              t("lobby.copy"),
            ),
            navigator.share
              ? h(
                  "button",
                  {
                    type: "button",
                    class: "btn btn-small btn-ghost",
                    onclick: () => navigator.share({ title: st.name, url }).catch(() => {}),
                  },
                  icon("share"),
                  t("lobby.share"),
                )
              : null,
          ),
        ),
      ),
    );
    let shared = null;
    if (isHost && st.mode === MODE.PASS_AND_PLAY && this.session.playToken) {
      const playUrl = `${url}#play=${this.session.playToken}`;
      shared = h(
        "section",
        { class: "card invite invite-play" },
        h("h2", { class: "card-title" }, t("lobby.play_device")),
        h("p", { class: "hint" }, t("lobby.play_device_hint")),
        h("div", { class: "qr-box qr-small" }, qrSvg(playUrl, { label: t("lobby.play_device") })),
        h(
          "button",
          { type: "button", class: "btn btn-small btn-ghost", onclick: () => this.copy(playUrl) },
          icon("copy"),
          t("lobby.copy_play"),
        ),
      );
    }
    const info = h(
      "section",
      { class: "card table-info" },
      h("p", { class: "eyebrow" }, t("lobby.title")),
      h("h1", { class: "title" }, st.name),
      h(
        "p",
        { class: "mode-line" },
        h("span", { class: `mode-badge mode-${st.mode}` }, modeName(st.mode)),
        " ",
        t(`mode.${st.mode}.hint`),
      ),
      rulesSummary(st),
      h(
        "a",
        { href: `/t/${code}/rules`, "data-link": "", class: "link" },
        icon("book"),
        t("lobby.read_rules"),
      ),
    );
    const seatsCard = h(
      "section",
      { class: "card seats", "aria-labelledby": "seats-title" },
      h("h2", { id: "seats-title", class: "card-title" }, t("lobby.seats"), this.seatCount),
      this.seats,
      this.joinBox,
      this.phonelessBox,
      this.lockBox,
    );
    const side = h("div", { class: "lobby-side" }, this.startBox, invite, shared);
    // The 组长 of an event's referee table comes to type the start dice in: on a phone their
    // pad comes before the eleven seats (first in the page's order too, for the keyboard).
    const startFirst = isHost && Boolean(st.event_table) && st.mode === MODE.REFEREE;
    mount(
      this.el,
      info,
      h(
        "div",
        { class: startFirst ? "lobby-grid start-first" : "lobby-grid" },
        startFirst ? [side, seatsCard] : [seatsCard, side],
      ),
    );
    this.paintSeats();
    this.paintJoin();
    this.paintPhoneless();
    this.paintLock();
    this.paintStart(false);
  }

  /**
   * @param {string} text
   */
  async copy(text) {
    const ok = await copyText(text);
    toast(ok ? t("lobby.copied") : text);
  }

  /** @param {{events: import("../protocol.js").LogEvent[], live: boolean}} detail */
  update({ events, live }) {
    const rolled =
      live && events.some((/** @type {Record<string, any>} */ e) => e.type === EVENT.START_DICE);
    this.paintSeats();
    this.paintJoin();
    this.paintPhoneless();
    this.paintLock();
    for (const e of events) {
      if (e.type === EVENT.LOBBY_LOCKED && live)
        announce(t(e.locked ? "lobby.locked_now" : "lobby.unlocked_now"));
    }
    this.paintStart(rolled);
    for (const e of events) {
      if (e.type === EVENT.PLAYER_JOINED && live)
        announce(t("log.joined", { player: e.name, seat: e.seat }));
    }
  }

  paintSeats() {
    const st = this.session.state;
    const isHost = this.session.isHost();
    const players = st.players || [];
    this.seatCount.textContent = t("lobby.seat_count", { n: players.length, max: seatLimit(st) });
    keepFocus(this.seats, () => {
      mount(
        this.seats,
        players.length
          ? players.map((/** @type {Record<string, any>} */ p, /** @type {number} */ i) =>
              h(
                "li",
                { class: `seat${p.name === this.session.me ? " is-me" : ""}` },
                h("span", { class: "seat-no", "aria-hidden": "true" }, String(i + 1)),
                h("span", { class: "seat-name" }, p.name),
                p.name === this.session.me ? h("span", { class: "badge" }, t("lobby.you")) : null,
                isHost
                  ? h(
                      "span",
                      { class: "seat-tools" },
                      h(
                        "button",
                        {
                          type: "button",
                          class: "icon-btn small",
                          "data-fk": `up-${p.name}`,
                          disabled: i === 0,
                          "aria-label": t("lobby.move_up", { player: p.name }),
                          onclick: () => this.move(i, -1),
                        },
                        icon("up"),
                      ),
                      h(
                        "button",
                        {
                          type: "button",
                          class: "icon-btn small",
                          "data-fk": `down-${p.name}`,
                          disabled: i === players.length - 1,
                          "aria-label": t("lobby.move_down", { player: p.name }),
                          onclick: () => this.move(i, 1),
                        },
                        icon("down"),
                      ),
                      h(
                        "button",
                        {
                          type: "button",
                          class: "icon-btn small danger",
                          "data-fk": `rm-${p.name}`,
                          "aria-label": t("lobby.remove", { player: p.name }),
                          onclick: () => this.remove(p.name),
                        },
                        icon("close"),
                      ),
                    )
                  : null,
              ),
            )
          : [h("li", { class: "seat seat-empty" }, t("lobby.no_players"))],
      );
    });
  }

  paintJoin() {
    const st = this.session.state;
    const isHost = this.session.isHost();
    const seated = Boolean(this.session.me);
    const full = (st.players || []).length >= seatLimit(st);
    const hostAdds = isHost && st.mode !== MODE.ONLINE;
    if (full) {
      mount(this.joinBox, h("p", { class: "hint" }, t("lobby.full", { n: seatLimit(st) })));
      return;
    }
    if (seated && !hostAdds) {
      mount(
        this.joinBox,
        h("p", { class: "hint seated-hint" }, t("lobby.seated_as", { player: this.session.me })),
      );
      return;
    }
    if (!hostAdds && st.mode !== MODE.ONLINE && !isHost) {
      mount(this.joinBox, h("p", { class: "hint" }, t("lobby.host_seats")));
      return;
    }
    if (st.lobby_locked && !isHost) {
      mount(
        this.joinBox,
        h("p", { class: "hint lock-hint" }, icon("lock"), t("lobby.locked_hint")),
      );
      return;
    }
    if (this.joinBox.contains(this.nameInput)) return;
    const label = hostAdds ? t("lobby.add_player") : isHost ? t("lobby.join_too") : t("lobby.join");
    const form = h(
      "form",
      {
        class: "join-form",
        onsubmit: (/** @type {Record<string, any>} */ ev) => {
          ev.preventDefault();
          this.join();
        },
      },
      h(
        "label",
        { for: "join-name", class: "field-label" },
        hostAdds ? t("lobby.player_name") : t("lobby.your_name"),
      ),
      h(
        "div",
        { class: "input-row" },
        this.nameInput,
        h("button", { type: "submit", class: "btn btn-primary" }, label),
      ),
    );
    mount(this.joinBox, form);
  }

  /** An online table's host seats people without a phone (and stands in for their throws). */
  paintPhoneless() {
    const st = this.session.state;
    const show =
      this.session.isHost() && st.mode === MODE.ONLINE && (st.players || []).length < seatLimit(st);
    if (!show) {
      mount(this.phonelessBox);
      return;
    }
    if (this.phonelessBox.contains(this.phonelessInput)) return;
    mount(
      this.phonelessBox,
      h(
        "form",
        {
          class: "join-form phoneless-form",
          onsubmit: (/** @type {Record<string, any>} */ ev) => {
            ev.preventDefault();
            this.addPhoneless();
          },
        },
        h("label", { for: "phoneless-name", class: "field-label" }, t("lobby.phoneless")),
        h(
          "div",
          { class: "input-row" },
          this.phonelessInput,
          h("button", { type: "submit", class: "btn btn-ghost" }, t("lobby.phoneless_add")),
        ),
        h("p", { class: "hint" }, t("lobby.phoneless_hint")),
      ),
    );
  }

  async addPhoneless() {
    const name = this.phonelessInput.value.trim();
    if (!name || BAD_NAME.test(name)) {
      toast(name ? t("error.bad_name_chars", { name }) : t("error.invalid_name"), {
        kind: "error",
      });
      this.phonelessInput.focus();
      return;
    }
    this.phonelessInput.value = "";
    try {
      const seat = await this.session.addPhoneless(name);
      announce(t("lobby.joined_as", { player: seat.name, seat: seat.seat }));
      this.phonelessInput.focus();
    } catch (err) {
      if (!this.phonelessInput.value) this.phonelessInput.value = name;
      showError(err);
    }
  }

  async join() {
    const name = this.nameInput.value.trim();
    if (!name || BAD_NAME.test(name)) {
      toast(name ? t("error.bad_name_chars", { name }) : t("error.invalid_name"), {
        kind: "error",
      });
      this.nameInput.focus();
      return;
    }
    // clear at once, so a name typed while this one is on its way is kept
    this.nameInput.value = "";
    try {
      const seat = await this.session.join(name);
      announce(t("lobby.joined_as", { player: seat.name, seat: seat.seat }));
      this.nameInput.focus();
    } catch (err) {
      if (!this.nameInput.value) this.nameInput.value = name;
      showError(err);
    }
  }

  /** The host's lock: while it is on, nobody can take a seat (the host can still add players). */
  paintLock() {
    const st = this.session.state;
    if (!this.session.isHost()) {
      mount(this.lockBox);
      return;
    }
    const locked = Boolean(st.lobby_locked);
    keepFocus(this.lockBox, () =>
      mount(
        this.lockBox,
        h(
          "div",
          { class: `lock-row${locked ? " is-locked" : ""}` },
          h(
            "p",
            { class: "hint", id: "lock-state" },
            t(locked ? "lobby.locked_host" : "lobby.open_host"),
          ),
          h(
            "button",
            {
              type: "button",
              class: "btn btn-small btn-ghost",
              "data-fk": "lock",
              "aria-pressed": String(locked),
              "aria-describedby": "lock-state",
              onclick: () => this.lock(!locked),
            },
            icon("lock"),
            t(locked ? "lobby.unlock" : "lobby.lock"),
          ),
        ),
      ),
    );
  }

  /**
   * @param {boolean} locked
   */
  async lock(locked) {
    try {
      await this.session.send(COMMAND.LOCK, { locked });
    } catch (err) {
      showError(err);
    }
  }

  /**
   * @param {number} index
   * @param {number} delta
   */
  async move(index, delta) {
    const names = this.session.state.players.map((/** @type {Record<string, any>} */ p) => p.name);
    const j = index + delta;
    if (j < 0 || j >= names.length) return;
    [names[index], names[j]] = [names[j], names[index]];
    try {
      await this.session.send(COMMAND.REORDER, { players: names });
    } catch (err) {
      showError(err);
    }
  }

  /**
   * @param {any} name
   */
  async remove(name) {
    try {
      await this.session.send(COMMAND.REMOVE, { player: name });
    } catch (err) {
      showError(err);
    }
  }

  /**
   * @param {boolean} rolled
   */
  paintStart(rolled) {
    const st = this.session.state;
    const isHost = this.session.isHost();
    const players = (st.players || []).map((/** @type {Record<string, any>} */ p) => p.name);
    const sd = st.start_dice;
    const starter = sd ? sd.starter || null : players[0] || null;
    const parts = [h("h2", { class: "card-title" }, t("lobby.start_title"))];
    if (sd) {
      parts.push(this.bowl.el);
      const text = t("lobby.start_dice_result", {
        player: sd.thrower,
        a: sd.dice[0],
        b: sd.dice[1],
        sum: sd.dice[0] + sd.dice[1],
        starter: starter || "?",
      });
      const line = h("p", { class: "start-result" }, text);
      parts.push(line);
      if (rolled) {
        rattle(0.7);
        line.hidden = true;
        this.bowl.roll(sd.dice, { count: 2, seed: 7, onSettle: settle }).then(() => {
          line.hidden = false;
          // the game may have started while the start dice were still landing: a lobby that is
          // gone says nothing (it would talk over the first throw's announcement)
          if (this.bowl.el.isConnected) announce(text);
        });
      } else if (!this.bowl.rolling) {
        this.bowl.show(sd.dice, { seed: 7 });
      }
    } else {
      parts.push(
        h(
          "p",
          { class: "hint" },
          players.length
            ? t("lobby.first_seat_starts", { player: players[0] })
            : t("lobby.need_players"),
        ),
      );
    }
    if (isHost) {
      // The event names this table's start thrower (RULES.md §10.1): pre-selected, and followed
      // when the organiser names another, until the 组长 picks someone here.
      const named = st.event_table && st.event_table.start_thrower;
      const preferred = named && players.includes(named) ? named : players[0] || null;
      if (!this.throwerPicked || !players.includes(this.thrower)) this.thrower = preferred;
      const select = h(
        "select",
        {
          class: "input",
          id: "start-thrower",
          "data-fk": "start-thrower",
          onchange: (/** @type {{target: HTMLInputElement}} */ ev) => {
            this.thrower = ev.target.value;
            this.throwerPicked = true;
          },
        },
        players.map((/** @type {import("../dom.js").Child} */ p) =>
          h("option", { value: p, selected: p === this.thrower }, p),
        ),
      );
      const controls = h("div", { class: "start-controls" });
      if (players.length) {
        controls.appendChild(
          h("label", { for: "start-thrower", class: "field-label" }, t("lobby.start_thrower")),
        );
        controls.appendChild(select);
        if (st.mode === MODE.REFEREE) {
          if (!this.pad) {
            this.pad = new RefereePad({
              count: 2,
              rules: st.rules,
              allowTiaohou: false,
              title: t("lobby.start_dice_real"),
              onConfirm: (faces) => this.startDice(faces),
            });
          }
          controls.appendChild(this.pad.el);
        } else {
          controls.appendChild(
            h(
              "button",
              {
                type: "button",
                class: "btn btn-ghost btn-block",
                "data-fk": "start-dice",
                onclick: () => this.startDice(null),
              },
              t(sd ? "lobby.start_dice_again" : "lobby.start_dice"),
            ),
          );
        }
      }
      controls.appendChild(
        h(
          "button",
          {
            type: "button",
            class: "btn btn-primary btn-big btn-block start-btn",
            "data-fk": "start",
            disabled: players.length < limits().min_players || this.starting,
            onclick: () => this.start(),
          },
          t("lobby.start"),
        ),
      );
      if (players.length >= limits().min_players && starter)
        controls.appendChild(h("p", { class: "hint" }, t("lobby.will_start", { player: starter })));
      parts.push(controls);
    } else {
      parts.push(h("p", { class: "waiting" }, t("lobby.waiting_host")));
    }
    keepFocus(this.startBox, () =>
      mount(this.startBox, h("section", { class: "card start-card" }, parts)),
    );
  }

  /**
   * @param {number[] | null} faces
   */
  async startDice(faces) {
    /** @type {{thrower: string, dice?: number[], nonce?: string}} */
    const fields = { thrower: this.thrower };
    if (faces) fields.dice = faces;
    else fields.nonce = randomId(20); // the server's start dice, from this device's randomness too
    try {
      const ack = await this.session.send(COMMAND.START_DICE, fields);
      if (fields.nonce) this.session.expectNonce(ack, 0, fields.nonce);
    } catch (err) {
      showError(err);
      throw err;
    }
  }

  async start() {
    if (this.starting) return;
    // once asked, the button waits for the answer (an Enter on it would ask twice), and keys
    // typed meanwhile are the first throw's (a real bowl's referee does not wait)
    this.setStarting(true);
    if (this.pad) this.pad.handOver();
    try {
      await this.session.send(COMMAND.START, {});
    } catch (err) {
      if (this.pad) this.pad.handBack();
      this.setStarting(false);
      toast(errorText(err), { kind: "error" });
    }
  }

  /**
   * @param {boolean} on
   */
  setStarting(on) {
    this.starting = on;
    const button = this.startBox.querySelector(".start-btn");
    if (button)
      button.disabled = on || (this.session.state.players || []).length < limits().min_players;
  }
}
