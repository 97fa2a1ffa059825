/**
 * The two lines a screen says after an action: what went well (a polite
 * status) and what did not (an alert, read out at once). Both render their
 * text as text, never as HTML, and nothing when there is nothing to say.
 */
export function Notice({ text }: { text: string | undefined | null }) {
  return text ? (
    <p class="ok" role="status">
      {text}
    </p>
  ) : null;
}

export function Alert({ text }: { text: string | undefined | null }) {
  return text ? (
    <p class="error" role="alert">
      {text}
    </p>
  ) : null;
}
