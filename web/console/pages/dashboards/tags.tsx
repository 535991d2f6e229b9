// A dashboard's tags as small labels (text: tags are what people typed).
export function Tags({ tags }: { tags: readonly string[] }) {
  if (tags.length === 0) return null;
  return (
    <ul class="tag-list" aria-label="Tags">
      {tags.map((tag) => <li key={tag} class="badge">{tag}</li>)}
    </ul>
  );
}
