// One delivery attempt's SMTP conversation, as a person reads it in a delivery log: each line
// with its time from the start of the attempt and who said it (C: what we sent, S: what the
// server answered, * what happened on the connection). The server's replies are hostile text:
// they are shown as text, and the API has already escaped their control characters.
import type { MailAttempt, TranscriptEntry } from "../../api/mail-types.ts";
import { formatNumber } from "../../format/numbers.ts";
import { exactTime } from "../messaging/messaging-bits.tsx";
import { MailBadge } from "./mail-bits.tsx";

const speakers: Record<TranscriptEntry["from"], string> = { client: "C:", server: "S:", event: " *" };

/** Milliseconds from the first entry, right-aligned so the lines' speakers line up. */
const offsetWidth = 7;

function transcriptLines(entries: TranscriptEntry[]): { key: string; from: TranscriptEntry["from"]; text: string }[] {
  const start = entries.length === 0 ? 0 : Date.parse(entries[0]!.at);
  return entries.flatMap((entry, index) => {
    const offset = `+${Date.parse(entry.at) - start}ms`.padStart(offsetWidth);
    const speaker = speakers[entry.from];
    return entry.text.split("\n").map((line, part) => ({
      key: `${index}-${part}`,
      from: entry.from,
      text: `${part === 0 ? offset : " ".repeat(offsetWidth)} ${speaker} ${line}`,
    }));
  });
}

export function SmtpTranscript({ attempt }: { attempt: MailAttempt }) {
  const { entries, omittedEntries } = attempt.transcript;
  return (
    <>
      {entries.length === 0 ? (
        <p class="muted-note">No SMTP conversation: no server of the domain was reached.</p>
      ) : (
        <pre class="smtp-transcript" tabIndex={0} aria-label={`SMTP conversation with ${attempt.domain}`}>
          {transcriptLines(entries).map((line) => (
            <span key={line.key} class={`smtp-line smtp-${line.from}`}>{line.text}{"\n"}</span>
          ))}
        </pre>
      )}
      {omittedEntries > 0 && <p class="muted-note">{formatNumber(omittedEntries)} lines in the middle of the conversation were left out.</p>}
    </>
  );
}

export function AttemptCard({ attempt, index }: { attempt: MailAttempt; index: number }) {
  const server = attempt.answered_by;
  return (
    <section class="mail-attempt" aria-label={`Attempt ${index + 1} to ${attempt.domain}`}>
      <h4 class="mail-attempt-title">
        Attempt {index + 1}: {attempt.domain}
      </h4>
      <p class="mail-attempt-facts">
        {exactTime(attempt.started_at)} · {formatNumber(attempt.duration_ms)} ms · {attempt.tls ? "encrypted (TLS)" : "not encrypted"}
        {server ? ` · answered by ${server.host} (${server.address}:${server.port})` : " · no server answered"}
      </p>
      <ul class="mail-attempt-results">
        {attempt.results.map((result) => (
          <li key={result.recipient}>
            <MailBadge status={result.outcome} /> <span class="mail-address">{result.recipient}</span>
            {(result.code !== null || result.text) && <span class="mail-answer">{[result.code, result.enhanced_code, result.text].filter((part) => part !== null && part !== "").join(" ")}</span>}
          </li>
        ))}
      </ul>
      <SmtpTranscript attempt={attempt} />
    </section>
  );
}
