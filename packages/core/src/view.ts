/**
 * View schemas: the shapes of the API's answers, as zod schemas beside the
 * `to…` functions that make them, so the OpenAPI document
 * (functions/src/openapi*.ts) is generated from what core says it returns.
 * A view function is annotated with its view's type; where the answer is
 * made by code that does not name its view, `Fits` holds the two together.
 */

/** Compiles only when `Answer` fits `View` (every field the view requires, of its type): `type _ = Fits<A, V>`. */
export type Fits<Answer extends View, View> = Answer;
