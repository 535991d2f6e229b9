// Dense ids for strings, in the order they are met: the dictionary of a column being written
// (column-builders.ts), a chunk's dictionary words (engine/columns.ts), and values met across
// many chunks (session ids, group keys, breakdown values), so hot loops compare integers.

export class WordIds {
  readonly words: string[] = [];
  private readonly ids = new Map<string, number>();

  id(word: string): number {
    let id = this.ids.get(word);
    if (id === undefined) {
      id = this.words.length;
      this.ids.set(word, id);
      this.words.push(word);
    }
    return id;
  }

  /** Forgets every word past the first `count` (their ids are free again). */
  truncate(count: number): void {
    for (let id = count; id < this.words.length; id++) this.ids.delete(this.words[id]!);
    if (count < this.words.length) this.words.length = count;
  }

  /** A chunk's dictionary codes mapped to global ids (-1 stays -1). */
  remap(words: string[]): Int32Array {
    return Int32Array.from(words, (word) => this.id(word));
  }
}
