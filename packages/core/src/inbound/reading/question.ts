/**
 * A question without commitment (price, fit, who we are, how we got the
 * address): a question mark, or the ways each language asks without one
 * ("tell me whether", "ich würde gern wissen", "je voudrais savoir",
 * "me gustaría saber", "ik wil graag weten", "gostaria de saber").
 */
import { anyOf } from './fold.ts';

const ASKS = anyOf([
  String.raw`tell me more|tell me (?:more )?(?:about|whether|if|how|what|why|who|where)|(?:i'd|i would) like to know|wondering (?:if|whether|how|what|who|why)|genuinely asking|curious (?:how|what|whether|if|about)`,
  String.raw`(?:ich )?(?:wurde|mochte) (?:gern|gerne) wissen|wusste (?:gern|gerne)|sagen sie mir`,
  String.raw`(?:je voudrais|j'aimerais|nous voudrions|pourriez-vous me dire) (?:savoir|connaitre)`,
  String.raw`(?:me gustaria|quisiera|quiero|queria) saber|(?:digame|dime) (?:si|cuanto|como|que)`,
  String.raw`(?:ik wil|ik zou) (?:graag )?(?:weten|willen weten)|(?:kunt u|kun je) (?:me )?(?:vertellen|laten weten)`,
  String.raw`(?:gostaria|queria|quero) (?:de )?saber|(?:me )?(?:diga|diz|informe) (?:se|quanto|como|qual)`,
]);

export function asksQuestion(folded: string): boolean {
  return folded.includes('?') || ASKS.test(folded);
}
