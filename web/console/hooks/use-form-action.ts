// A form's submit: runs the action with the form's fields, and says whether it is under way
// and what went wrong, for the page to show.
import { useState } from "preact/hooks";

export interface FormAction {
  busy: boolean;
  error: unknown;
  onSubmit(event: SubmitEvent): Promise<void>;
}

export function useFormAction(action: (fields: FormData) => Promise<void>): FormAction {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const onSubmit = async (event: SubmitEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await action(new FormData(event.currentTarget as HTMLFormElement));
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, onSubmit };
}

/** A text field's value ("" when absent). */
export const fieldText = (fields: FormData, name: string) => {
  const value = fields.get(name);
  return typeof value === "string" ? value : "";
};
