// The three states every page that loads something has: loading, empty and error, each with
// what to do next.
import type { ComponentChildren } from "preact";
import { describeError } from "../api/errors.ts";
import type { Resource } from "../hooks/use-resource.ts";
import { Button } from "./button.tsx";
import { AlertIcon } from "./icons.tsx";

export function Spinner({ large }: { large?: boolean }) {
  return <span class={large ? "spinner spinner-large" : "spinner"} aria-hidden="true" />;
}

export function LoadingState({ label }: { label: string }) {
  return (
    <div class="state" role="status" aria-live="polite">
      <Spinner large />
      <p class="state-text">{label}</p>
    </div>
  );
}

interface EmptyStateProps {
  icon: ComponentChildren;
  title: string;
  children?: ComponentChildren;
  action?: ComponentChildren;
}

export function EmptyState({ icon, title, children, action }: EmptyStateProps) {
  return (
    <div class="state">
      <div class="state-icon">{icon}</div>
      <h2 class="state-title">{title}</h2>
      {children && <p class="state-text">{children}</p>}
      {action && <div class="state-action">{action}</div>}
    </div>
  );
}

interface ErrorStateProps {
  title: string;
  error: unknown;
  onRetry?: () => void;
  /** Another way forward, beside or instead of retrying. */
  action?: ComponentChildren;
}

export function ErrorState({ title, error, onRetry, action }: ErrorStateProps) {
  return (
    <div class="state state-error" role="alert">
      <div class="state-icon"><AlertIcon size={20} /></div>
      <h2 class="state-title">{title}</h2>
      <p class="state-text">{describeError(error)}</p>
      <div class="state-action">
        {onRetry && <Button onClick={onRetry}>Try again</Button>}
        {action}
      </div>
    </div>
  );
}

/** A resource loading, failed (with Try again), or shown by `children`; `what` names it ("the usage"). */
export function Loaded<T>({ resource, what, onRetry, children }: { resource: Resource<T>; what: string; onRetry(): void; children(data: T): ComponentChildren }) {
  if (resource.status === "loading") return <LoadingState label={`Loading ${what}…`} />;
  if (resource.status === "failed") return <ErrorState title={`${what.charAt(0).toUpperCase()}${what.slice(1)} could not be loaded`} error={resource.error} onRetry={onRetry} />;
  return <>{children(resource.data)}</>;
}
