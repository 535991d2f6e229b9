// The SQL column name of each property key (`p_<key>` in the events view, `pp_<key>` in
// persons). Any character can be quoted in an identifier but NUL, which ends DuckDB's SQL text,
// so a key with NUL (refused at ingest, but possibly stored before) has no column. DuckDB
// matches identifiers ignoring ASCII letter case, even quoted ones, so `p_plan` and `p_Plan`
// would be one name (and UNION BY NAME refuses them): keys whose names differ only so get
// distinct names, decided from every key present, so the same keys always name alike.

/** Whether `key` can be spelled in SQL text. */
export const sqlSpellable = (key: string): boolean => !key.includes("\u0000");

/** A name as DuckDB compares it. */
export const foldIdentifier = (name: string): string => name.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());

/**
 * Each spellable key's column name: `prefix + key`, except that among keys whose names fold
 * alike, only the first in code-unit order keeps it; the n-th (n >= 2) is `prefix + key + "_" + n`,
 * with n raised further while that name is taken.
 */
export function propertyColumnNames(prefix: string, keys: Iterable<string>): Map<string, string> {
  const groups = new Map<string, string[]>();
  for (const key of [...new Set(keys)].filter(sqlSpellable).sort()) {
    const folded = foldIdentifier(prefix + key);
    const group = groups.get(folded);
    if (group) group.push(key);
    else groups.set(folded, [key]);
  }
  // Every group's first key is named before any suffix is chosen, so no suffix takes a key's own name.
  const names = new Map<string, string>();
  const taken = new Set(groups.keys());
  for (const [first] of groups.values()) names.set(first!, prefix + first);
  for (const group of groups.values()) {
    group.slice(1).forEach((key, index) => {
      let n = index + 2;
      while (taken.has(foldIdentifier(`${prefix}${key}_${n}`))) n++;
      const name = `${prefix}${key}_${n}`;
      taken.add(foldIdentifier(name));
      names.set(key, name);
    });
  }
  return names;
}
