// Unit tests of js/fit.js (node --test): the hall's grid and the lists' font, pure arithmetic.
import { test } from "node:test";
import assert from "node:assert/strict";
import { tileGrid, listGrid } from "../../bobing/web/static/js/fit.js";

test("four tables at 1080p: two by two, QR codes a third of the height, large type", () => {
  const g = tileGrid(4, 1888, 840, 13);
  assert.equal(g.cols * g.rows >= 4, true);
  assert.equal(g.cols, 2);
  assert.ok(g.qr >= 300, `qr ${g.qr}`);
  assert.ok(g.font >= 28, `font ${g.font}`);
});

test("every count from 1 to 30 gets a grid that holds it, never more than one row empty", () => {
  for (let n = 1; n <= 30; n++) {
    const g = tileGrid(n, 1888, 840, 13);
    assert.ok(g.cols * g.rows >= n, `${n}: ${g.cols}×${g.rows}`);
    assert.ok(g.cols * (g.rows - 1) < n, `${n}: a whole row empty`);
    assert.ok(g.qr > 0 && g.font > 0);
  }
});

test("the same layout scales with the screen", () => {
  const small = tileGrid(12, 1248, 560, 9);
  const big = tileGrid(12, 3776, 1700, 26);
  assert.equal(small.cols, big.cols);
  assert.ok(big.qr > 2.5 * small.qr);
});

test("a long list goes into columns when that makes its type larger", () => {
  const one = listGrid(13, 800, 700, { chars: 20 });
  assert.equal(one.cols, 1);
  const many = listGrid(30, 1800, 700, { chars: 20 });
  assert.ok(many.cols >= 2, `cols ${many.cols}`);
  assert.ok(many.rows * many.cols >= 30);
  assert.ok(many.font * many.rows * 1.5 <= 700 + 1);
});

test("a tile's text as tall as measured fits in its tile, whatever the font makes it", () => {
  // 7.54 em is the hall's text with WenQuanYi, 7.65 with Noto CJK (issue 33), 9 a line wrapped
  for (const ems of [7.54, 7.65, 9]) {
    for (const [width, height, gap] of [
      [1248, 560, 9],
      [1888, 840, 13],
      [3776, 1700, 26],
    ]) {
      for (let n = 1; n <= 30; n++) {
        const g = tileGrid(n, width, height, gap, { ems, frame: 4 });
        const text = g.font * ems;
        const inner = g.height - 4;
        const room = g.layout === "col" ? inner - g.qr - 3 * g.pad : inner - 2 * g.pad;
        assert.ok(text <= room + 0.5, `${n} at ${width}×${height}, ${ems} em: ${text} > ${room}`);
        const wide = g.width - 4;
        const across = g.layout === "col" ? wide - 2 * g.pad : wide - g.qr - 3 * g.pad;
        assert.ok(g.font * 12 <= across + 0.5, `${n} at ${width}×${height}: too wide`);
      }
    }
  }
});
