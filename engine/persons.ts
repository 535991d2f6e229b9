// Who each event is about, for the executor: every stored event carries the dense person
// index its person had at ingest (column `person_index`), and merges since then are an
// override array (`canonical[i]` = the surviving person of index i). Unique-person counts,
// funnels, retention, lifecycle and stickiness all go through canonicalPersons, so one
// human counts once across events written before and after a merge.

/**
 * The canonical person of each row. An index past the end of `canonical` belongs to a person
 * created after the array was read: nothing has merged it yet, so it stands for itself.
 */
export function canonicalPersons(personIndex: Int32Array, canonical: Int32Array): Int32Array {
  const out = new Int32Array(personIndex.length);
  const known = canonical.length;
  for (let row = 0; row < personIndex.length; row++) {
    const index = personIndex[row]!;
    out[row] = index < known ? canonical[index]! : index;
  }
  return out;
}
