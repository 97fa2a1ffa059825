/**
 * A campaign's variants in the console: the form's section to write 2 to 6
 * versions of the first email (and whether the winner goes to the leads not
 * yet written to), and the view's figures per variant with the winner and the
 * test the engine names. Variants are shown as letters (A, B, …) because the
 * engine's `index` counts from 0: "Variant 0" reads like a mistake.
 */
import { useEffect, useState } from 'preact/hooks';
import type { operations, Schemas } from '@outbound/client/index';
import { api, errorText } from '../api.ts';
import { Alert } from '../messages.tsx';

export const MIN_VARIANTS = 2;
export const MAX_VARIANTS = 6;

export interface VariantDraft {
  subject: string;
  template: string;
  aiPromptTemplate: string;
}

type Variant = NonNullable<Schemas['Campaign']['variants']>[number];
type Figures = operations['getVariants']['responses'][200]['content']['application/json'];

/** The letter a variant is shown by: index 0 is A. */
export const letter = (index: number) => String.fromCharCode(65 + index);

export const draftVariants = (variants: Variant[] | null | undefined): VariantDraft[] =>
  (variants ?? []).map((v) => ({ subject: v.subject, template: v.template, aiPromptTemplate: v.aiPromptTemplate ?? '' }));

/** The list as the engine takes it: an empty prompt is left out, so it falls back to the campaign's. */
export const variantsBody = (drafts: VariantDraft[]): Variant[] | null =>
  drafts.length === 0
    ? null
    : drafts.map((v) => ({
        subject: v.subject,
        template: v.template,
        ...(v.aiPromptTemplate ? { aiPromptTemplate: v.aiPromptTemplate } : {}),
      }));

/**
 * Whether the form's variants differ from the campaign's. A save sends them
 * only then: once a first email used them any change is refused (409), and a
 * save of the name or the mailboxes should not run into that.
 */
export const variantsChanged = (drafts: VariantDraft[], stored: Variant[] | null | undefined) =>
  JSON.stringify(variantsBody(drafts)) !== JSON.stringify(variantsBody(draftVariants(stored)));

interface FieldsProps {
  variants: VariantDraft[];
  autoWinner: boolean;
  /** The campaign writes its copy with AI: each variant may have a prompt of its own. */
  aiCopy: boolean;
  /** What a new first variant starts from: the campaign's own copy. */
  start: VariantDraft;
  onVariants: (variants: VariantDraft[]) => void;
  onAutoWinner: (on: boolean) => void;
}

/** The form's Variants section: none, or 2 to 6 versions of the first email. */
export function VariantFields({ variants, autoWinner, aiCopy, start, onVariants, onAutoWinner }: FieldsProps) {
  const change = (i: number, field: keyof VariantDraft, value: string) =>
    onVariants(variants.map((v, j) => (j === i ? { ...v, [field]: value } : v)));
  const blank: VariantDraft = { subject: '', template: '', aiPromptTemplate: '' };
  return (
    <fieldset>
      <legend>Variants of the first email (optional)</legend>
      <p class="muted">
        Test {MIN_VARIANTS} to {MAX_VARIANTS} versions: each lead gets one at its first email and keeps it. Follow-ups are the same for
        every variant. Without variants the subject and first email above are sent.
      </p>
      {variants.map((v, i) => (
        <div key={i} class="card" role="group" aria-label={`Variant ${letter(i)}`}>
          <label for={`v-subject-${i}`}>Variant {letter(i)} subject</label>
          <input id={`v-subject-${i}`} value={v.subject} onInput={(e) => change(i, 'subject', e.currentTarget.value)} />
          <label for={`v-template-${i}`}>Variant {letter(i)} first email</label>
          <textarea id={`v-template-${i}`} value={v.template} onInput={(e) => change(i, 'template', e.currentTarget.value)} />
          {(aiCopy || v.aiPromptTemplate) && (
            <>
              <label for={`v-prompt-${i}`}>Variant {letter(i)} AI prompt (optional: empty uses the campaign’s)</label>
              <textarea
                id={`v-prompt-${i}`}
                value={v.aiPromptTemplate}
                onInput={(e) => change(i, 'aiPromptTemplate', e.currentTarget.value)}
              />
            </>
          )}
          {variants.length > MIN_VARIANTS && (
            <button type="button" class="quiet" onClick={() => onVariants(variants.filter((_, j) => j !== i))}>
              Remove variant {letter(i)}
            </button>
          )}
        </div>
      ))}
      {variants.length === 0 ? (
        <button type="button" class="quiet" onClick={() => onVariants([start, blank])}>
          Test variants
        </button>
      ) : (
        <>
          {variants.length < MAX_VARIANTS && (
            <button type="button" class="quiet" onClick={() => onVariants([...variants, blank])}>
              Add a variant
            </button>
          )}
          <button type="button" class="quiet" onClick={() => onVariants([])}>
            Remove the variants
          </button>
          <label class="inline">
            <input type="checkbox" checked={autoWinner} onChange={(e) => onAutoWinner(e.currentTarget.checked)} /> Once a winner is named,
            send it to every lead not yet sent a first email
          </label>
        </>
      )}
    </fieldset>
  );
}

/** The view's figures per variant (leads, over first emails), the winner once named, and the test that names it. */
export function VariantFigures({ id, autoWinner, version }: { id: string; autoWinner: boolean; version: unknown }) {
  const [figures, setFigures] = useState<Figures | undefined>();
  const [error, setError] = useState('');
  // `version` is the campaign as last read: a save or an action reads the figures again.
  useEffect(() => {
    void api
      .GET('/v1/campaigns/{id}/variants', { params: { path: { id } } })
      .then(({ data, error: refused }) => (data ? setFigures(data) : setError(errorText(refused))));
  }, [id, version]);
  if (error) return <Alert text={error} />;
  if (!figures || figures.variants.length === 0) return null;
  const winner = figures.variants.find((v) => v.index === figures.winner);
  return (
    <section class="card" aria-labelledby="variants-heading">
      <h2 id="variants-heading">Variants</h2>
      <div class="scroll">
        <table>
          <caption class="muted">Leads per variant of the first email</caption>
          <thead>
            <tr>
              <th scope="col">Variant</th>
              <th scope="col">Subject</th>
              <th scope="col">Sent</th>
              <th scope="col">Replied</th>
              <th scope="col">Positive</th>
              <th scope="col">Bounced</th>
              <th scope="col">Unsubscribed</th>
            </tr>
          </thead>
          <tbody>
            {figures.variants.map((v) => (
              <tr key={v.index}>
                <th scope="row">
                  {letter(v.index)}
                  {v.index === figures.winner ? ' (winner)' : ''}
                </th>
                <td>{v.subject}</td>
                <td>{v.sent}</td>
                <td>{v.replied}</td>
                <td>{v.positive}</td>
                <td>{v.bounced}</td>
                <td>{v.unsubscribed}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p data-testid="variants-winner">
        {winner
          ? `The winner is variant ${letter(winner.index)}.${autoWinner ? ' Leads not yet sent a first email get it.' : ''}`
          : 'No winner yet.'}
      </p>
      <p class="muted">How a winner is named: {figures.method}</p>
    </section>
  );
}
