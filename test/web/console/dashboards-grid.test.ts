// The dashboard grid's rules as the console applies them before saving (web/console/pages/
// dashboards/grid-layout.ts): tiles in the way are pushed down, nothing overlaps, nothing
// leaves the 12 columns or 1,000 rows, and the keys move or resize by one cell.
import { describe, expect, test } from "bun:test";
import {
  applyChange, arrange, changedPositions, clampPosition, clampSize, keyboardChange, overlaps,
} from "../../../web/console/pages/dashboards/grid-layout.ts";

const noOverlaps = (layouts: Record<string, { x: number; y: number; w: number; h: number }>) => {
  const all = Object.values(layouts);
  return all.every((a, i) => all.every((b, j) => i === j || !overlaps(a, b)));
};

describe("arrange", () => {
  test("a tile moved onto others pushes them down, and they push the tiles below them", () => {
    const layouts = { a: { x: 0, y: 0, w: 6, h: 2 }, b: { x: 6, y: 0, w: 6, h: 2 }, c: { x: 0, y: 2, w: 12, h: 2 } };
    const arranged = arrange(layouts, "a", { x: 6, y: 0, w: 6, h: 2 });
    expect(arranged).toEqual({ a: { x: 6, y: 0, w: 6, h: 2 }, b: { x: 6, y: 2, w: 6, h: 2 }, c: { x: 0, y: 4, w: 12, h: 2 } });
    expect(noOverlaps(arranged!)).toBe(true);
  });

  test("tiles not in the way keep their places, gaps included", () => {
    const layouts = { a: { x: 0, y: 0, w: 4, h: 2 }, b: { x: 8, y: 10, w: 4, h: 2 } };
    expect(arrange(layouts, "a", { x: 0, y: 5, w: 4, h: 3 })).toEqual({ a: { x: 0, y: 5, w: 4, h: 3 }, b: { x: 8, y: 10, w: 4, h: 2 } });
  });

  test("a resize that grows over a neighbour pushes it below", () => {
    const layouts = { a: { x: 0, y: 0, w: 6, h: 5 }, b: { x: 0, y: 5, w: 6, h: 5 }, c: { x: 6, y: 0, w: 6, h: 5 } };
    expect(arrange(layouts, "a", { x: 0, y: 0, w: 8, h: 6 })).toEqual({ a: { x: 0, y: 0, w: 8, h: 6 }, b: { x: 0, y: 6, w: 6, h: 5 }, c: { x: 6, y: 6, w: 6, h: 5 } });
  });

  test("an arrangement that would push a tile past row 1,000 is refused", () => {
    const layouts = { a: { x: 0, y: 0, w: 12, h: 2 }, b: { x: 0, y: 998, w: 12, h: 2 } };
    expect(arrange(layouts, "a", { x: 0, y: 997, w: 12, h: 2 })).toBeNull();
  });

  test("random moves never leave an overlap", () => {
    let seed = 7;
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    let layouts: Record<string, { x: number; y: number; w: number; h: number }> = {};
    for (let i = 0; i < 12; i++) layouts[`t${i}`] = { x: (i % 2) * 6, y: Math.floor(i / 2) * 5, w: 6, h: 5 };
    for (let round = 0; round < 300; round++) {
      const id = `t${random(12)}`;
      const w = 1 + random(12);
      const target = clampPosition({ x: random(12), y: random(40), w, h: 1 + random(8) });
      const arranged = arrange(layouts, id, target);
      if (!arranged) continue;
      expect(noOverlaps(arranged)).toBe(true);
      layouts = arranged;
    }
  });
});

describe("keys and bounds", () => {
  test("arrows move, Shift and arrows resize, other keys do nothing", () => {
    expect(keyboardChange("ArrowRight", false)).toEqual({ kind: "move", dx: 1, dy: 0 });
    expect(keyboardChange("ArrowUp", true)).toEqual({ kind: "resize", dx: 0, dy: -1 });
    expect(keyboardChange("Enter", false)).toBeNull();
    const tile = { x: 0, y: 0, w: 6, h: 5 };
    expect(applyChange(tile, { kind: "move", dx: 1, dy: 0 })).toEqual({ x: 1, y: 0, w: 6, h: 5 });
    expect(applyChange(tile, { kind: "move", dx: -1, dy: 0 })).toBeNull();
    expect(applyChange(tile, { kind: "move", dx: 0, dy: -1 })).toBeNull();
    expect(applyChange(tile, { kind: "resize", dx: 0, dy: 1 })).toEqual({ x: 0, y: 0, w: 6, h: 6 });
    expect(applyChange({ x: 6, y: 0, w: 6, h: 5 }, { kind: "resize", dx: 1, dy: 0 })).toBeNull();
    expect(applyChange({ x: 0, y: 0, w: 1, h: 1 }, { kind: "resize", dx: -1, dy: 0 })).toBeNull();
    expect(applyChange({ x: 0, y: 0, w: 6, h: 50 }, { kind: "resize", dx: 0, dy: 1 })).toBeNull();
  });

  test("positions and sizes stay on the grid", () => {
    expect(clampPosition({ x: 10, y: -3, w: 4, h: 2 })).toEqual({ x: 8, y: 0, w: 4, h: 2 });
    expect(clampPosition({ x: 0, y: 999, w: 4, h: 2 })).toEqual({ x: 0, y: 998, w: 4, h: 2 });
    expect(clampSize({ x: 9, y: 0, w: 6, h: 80 })).toEqual({ x: 9, y: 0, w: 3, h: 50 });
    expect(clampSize({ x: 0, y: 0, w: 0, h: 0 })).toEqual({ x: 0, y: 0, w: 1, h: 1 });
  });

  test("only the tiles whose place changed are sent", () => {
    const before = { a: { x: 0, y: 0, w: 6, h: 2 }, b: { x: 6, y: 0, w: 6, h: 2 } };
    const after = { a: { x: 0, y: 0, w: 6, h: 2 }, b: { x: 6, y: 2, w: 6, h: 2 }, gone: { x: 0, y: 9, w: 1, h: 1 } };
    expect(changedPositions(before, after)).toEqual([{ id: "b", x: 6, y: 2, w: 6, h: 2 }]);
  });
});
