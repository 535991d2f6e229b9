// A tenant's stored email templates: created, listed, read, changed and deleted through the API,
// and found by the send path (`template.id` of a send request). A template is checked when it
// is saved against what a send would need of it, with the send's own rules and limits: a
// subject a send would accept, html and text within the send's bounds, and placeholders a
// request's variables can fill, so a broken template is refused here and not at send time.
import { ApiError, conflict, notFound, validation } from "../http/errors.ts";
import { refuseForbiddenCharacters } from "./compose/characters.ts";
import { ComposeError } from "./compose/errors.ts";
import {
  parseTemplateId,
  strayPlaceholderIndex,
  templatePlaceholders,
  templateVariableNameLengthMax,
  templateVariablesMax,
  type StoredTemplate,
} from "./compose/template.ts";
import { checkedSize, htmlBytesMax, parseSubject, textBytesMax } from "./compose/validate.ts";
import type { MailTemplate, TemplateContent, TemplateStore, TemplateSummary } from "./store/templates.ts";

export const templatesPerTenantMax = 200;
export const templateNameLengthMax = 200;
/** An update retries this often when another one changed the template between its read and its write. */
const updateAttemptsMax = 10;
/** How much of a stray `{{` a refusal quotes. */
const strayQuoteLengthMax = 24;

export interface TemplateFields {
  name?: string;
  /** null: none (a send then gives its own). */
  subject?: string | null;
  /** null or "": none; at least one of html and text is needed. */
  html?: string | null;
  text?: string | null;
}

export class TemplatesService {
  constructor(
    private readonly templates: TemplateStore,
    private readonly now: () => number,
  ) {}

  async create(tenantId: string, input: TemplateFields & { id: unknown }): Promise<MailTemplate> {
    const id = parseTemplateId(input.id, "id");
    const content = checkedContent({ name: input.name ?? id, subject: input.subject ?? null, html: input.html ?? null, text: input.text ?? null });
    const created = await this.templates.create({ rowId: Bun.randomUUIDv7(), tenantId, id, content, now: this.now() }, templatesPerTenantMax);
    if (created) return created;
    if (await this.templates.get(tenantId, id)) throw conflict(`${id} is already one of your templates`);
    throw new ApiError(422, "too_many", `an account has at most ${templatesPerTenantMax} templates; delete one to add another`);
  }

  async get(tenantId: string, id: string): Promise<MailTemplate> {
    const template = await this.templates.get(tenantId, id);
    if (!template) throw notFound("template");
    return template;
  }

  list = (tenantId: string, limit: number, after: string | null): Promise<TemplateSummary[]> => this.templates.list(tenantId, limit, after);

  /** Changes the fields given (null clears subject, html or text); the id stays. */
  async update(tenantId: string, id: string, changes: TemplateFields): Promise<MailTemplate> {
    for (let attempt = 1; ; attempt += 1) {
      const current = await this.get(tenantId, id);
      if (Object.keys(changes).length === 0) return current;
      const content = checkedContent({
        name: changes.name ?? current.name,
        subject: changes.subject === undefined ? current.subject : changes.subject,
        html: changes.html === undefined ? current.html : changes.html,
        text: changes.text === undefined ? current.text : changes.text,
      });
      const updated = await this.templates.update(current.rowId, current.revision, content, this.now());
      if (updated) return updated;
      if (attempt === updateAttemptsMax) throw conflict("the template kept changing while this change was applied; try again");
    }
  }

  async remove(tenantId: string, id: string): Promise<void> {
    if (!(await this.templates.remove(tenantId, id, this.now()))) throw notFound("template");
  }

  /** For the send path (SendRequestContext.findTemplate): the tenant's template with this id, or null. */
  async find(tenantId: string, id: string): Promise<StoredTemplate | null> {
    const template = await this.templates.get(tenantId, id);
    return template && { subject: template.subject, html: template.html, text: template.text };
  }
}

function checkedContent(fields: { name: string; subject: string | null; html: string | null; text: string | null }): TemplateContent {
  const name = fields.name.trim();
  if (name === "") throw validation("name: must not be blank");
  refuseForbiddenCharacters(name, "name", { allowTab: false });
  const subject = fields.subject === null ? null : parseSubject(fields.subject, "subject");
  const html = checkedBody(fields.html, "html", htmlBytesMax);
  const text = checkedBody(fields.text, "text", textBytesMax);
  if (html === null && text === null) throw new ComposeError("html", "missing_field", "give html, text or both");
  const variables = new Set<string>();
  for (const [field, value] of [["subject", subject], ["html", html], ["text", text]] as const) {
    if (value === null) continue;
    refuseStrayPlaceholder(value, field);
    for (const variable of templatePlaceholders(value)) variables.add(variable);
    if (variables.size > templateVariablesMax) {
      throw new ComposeError(field, "too_many", `the template uses more than ${templateVariablesMax} variables, the most a send can give`);
    }
  }
  return { name, subject, html, text, variables: [...variables] };
}

// NUL has no place in mail text, and PostgreSQL's TEXT cannot hold it: refused on every store alike.
function checkedBody(value: string | null, field: string, bytesMax: number): string | null {
  if (value?.includes("\u0000")) throw new ComposeError(field, "forbidden_character", "must not contain NUL (U+0000)");
  return checkedSize(value || null, field, bytesMax);
}

function refuseStrayPlaceholder(value: string, field: string): void {
  const index = strayPlaceholderIndex(value);
  if (index === null) return;
  const quoted = JSON.stringify(value.slice(index, index + strayQuoteLengthMax));
  const character = [...value.slice(0, index)].length + 1;
  throw new ComposeError(
    field,
    "invalid_value",
    `${quoted} at character ${character} is not a placeholder: write {{name}}, the name of ASCII letters, digits and _, not starting with a digit, at most ${templateVariableNameLengthMax} characters`,
  );
}
