// Distinct (cell, id) pairs in an open-addressing hash table over typed arrays: how many
// different persons, sessions or groups each cell (series x breakdown value x bucket) saw,
// without a Map or a Set in the hot loop.

const emptyCell = -1;
const initialCapacity = 1 << 12;

export class DistinctPairs {
  private cells = new Int32Array(initialCapacity).fill(emptyCell);
  private ids = new Int32Array(initialCapacity);
  private size = 0;
  /** Distinct ids per cell (grows when a cell past the end is added). */
  counts: Float64Array;

  constructor(cellCount: number) {
    this.counts = new Float64Array(cellCount);
  }

  add(cell: number, id: number): void {
    if (cell >= this.counts.length) {
      const grown = new Float64Array(Math.max(cell + 1, this.counts.length * 2));
      grown.set(this.counts);
      this.counts = grown;
    }
    if ((this.size + 1) * 2 > this.cells.length) this.grow();
    const mask = this.cells.length - 1;
    let slot = Math.imul(cell, 0x9e3779b1) ^ Math.imul(id, 0x85ebca6b);
    slot = (slot ^ (slot >>> 15)) & mask;
    for (;;) {
      const present = this.cells[slot]!;
      if (present === emptyCell) {
        this.cells[slot] = cell;
        this.ids[slot] = id;
        this.size++;
        this.counts[cell]!++;
        return;
      }
      if (present === cell && this.ids[slot] === id) return;
      slot = (slot + 1) & mask;
    }
  }

  private grow(): void {
    const oldCells = this.cells;
    const oldIds = this.ids;
    this.cells = new Int32Array(oldCells.length * 2).fill(emptyCell);
    this.ids = new Int32Array(oldCells.length * 2);
    const mask = this.cells.length - 1;
    for (let i = 0; i < oldCells.length; i++) {
      const cell = oldCells[i]!;
      if (cell === emptyCell) continue;
      const id = oldIds[i]!;
      let slot = Math.imul(cell, 0x9e3779b1) ^ Math.imul(id, 0x85ebca6b);
      slot = (slot ^ (slot >>> 15)) & mask;
      while (this.cells[slot] !== emptyCell) slot = (slot + 1) & mask;
      this.cells[slot] = cell;
      this.ids[slot] = id;
    }
  }
}
