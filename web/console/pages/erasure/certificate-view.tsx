// A completed erasure's certificate: what it says (counts per store, hashes of the erased
// identifiers, the manifest digest), the signed text to download, and a check of its signature
// by the public verify route, which is what anyone given the file can do.
import { useState } from "preact/hooks";
import { describeError } from "../../api/errors.ts";
import { getCertificate, verifyCertificate, type ErasureCertificate, type Verification } from "../../api/erasure-api.ts";
import type { ProjectDto } from "../../api/types.ts";
import { formatDateTime } from "../../format/date-time.ts";
import { useResource } from "../../hooks/use-resource.ts";
import { Alert } from "../../ui/alert.tsx";
import { Button } from "../../ui/button.tsx";
import { FactList } from "../../ui/fact-list.tsx";
import { saveFile } from "../../ui/save-file.ts";
import { Loaded } from "../../ui/states.tsx";

const storeText = (store: string) => store.replaceAll("_", " ");

function VerifyResult({ result }: { result: Verification }) {
  if (result.valid) return <Alert tone="success">The signature is valid: signed by this service with key <span class="mono">{result.kid}</span>, unchanged since.</Alert>;
  return <Alert tone="error">The certificate does not verify ({result.reason}): {result.message}</Alert>;
}

function Certificate({ project, signed }: { project: ProjectDto; signed: ErasureCertificate }) {
  const { payload } = signed;
  const [checking, setChecking] = useState(false);
  const [result, setResult] = useState<Verification | null>(null);
  const [error, setError] = useState<unknown>(null);
  const check = async () => {
    setChecking(true);
    setError(null);
    try {
      setResult(await verifyCertificate(signed.certificate));
    } catch (failure) {
      setError(failure);
    } finally {
      setChecking(false);
    }
  };
  const at = (iso: string) => <time dateTime={iso}>{formatDateTime(iso, project.timezone)}</time>;
  return (
    <div class="erasure-certificate">
      <FactList
        facts={[
          ["Request", <span class="mono">{payload.request_id}</span>],
          ["Region and environment", `${payload.region} · ${payload.environment}`],
          ["Persons erased", String(payload.persons_erased)],
          ["Identifiers (as SHA-256 hashes)", String(payload.identifier_hashes.length)],
          ["Requested", at(payload.requested_at)],
          ["Completed", at(payload.completed_at)],
          ["Manifest digest", <span class="mono erasure-digest">{payload.manifest_digest}</span>],
        ]}
      />
      <div class="table-scroll">
        <table class="data-table">
          <caption class="visually-hidden">Removed, per store</caption>
          <thead>
            <tr><th scope="col">Store</th><th scope="col" class="cell-numeric">Removed</th></tr>
          </thead>
          <tbody>
            {Object.entries(payload.removed).map(([store, count]) => (
              <tr key={store}><td>{storeText(store)}</td><td class="cell-numeric">{count}</td></tr>
            ))}
          </tbody>
        </table>
      </div>
      <div class="erasure-certificate-actions">
        <Button variant="primary" small onClick={() => saveFile(new Blob([signed.certificate], { type: "application/jose" }), `erasure-certificate-${payload.request_id}.jws`)}>
          Download certificate
        </Button>
        <Button small busy={checking} onClick={() => void check()}>Verify signature</Button>
      </div>
      {result && <VerifyResult result={result} />}
      {error !== null && <Alert tone="error">{describeError(error)}</Alert>}
    </div>
  );
}

export function CertificateView({ project, requestId }: { project: ProjectDto; requestId: string }) {
  const [certificate, reload] = useResource(() => getCertificate(project.id, requestId), [project.id, requestId]);
  return (
    <Loaded resource={certificate} what="the certificate" onRetry={reload}>
      {(signed) => <Certificate project={project} signed={signed} />}
    </Loaded>
  );
}
