// Any path the console has no page for.
import { LinkButton } from "../ui/button.tsx";
import { SearchOffIcon } from "../ui/icons.tsx";
import { useDocumentTitle } from "../ui/page-title.tsx";
import { EmptyState } from "../ui/states.tsx";
import { paths } from "../paths.ts";

export default function NotFoundPage() {
  useDocumentTitle("Page not found");
  return (
    <main id="main" class="centered-page">
      <EmptyState icon={<SearchOffIcon size={20} />} title="Page not found" action={<LinkButton href={paths.home} variant="primary">Go to the console</LinkButton>}>
        There is no page at this address. Check the link, or start from the console's home.
      </EmptyState>
    </main>
  );
}
