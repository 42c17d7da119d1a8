/**
 * Splitting `<think>...</think>` out of an answer's content text.
 *
 * Servers without a reasoning parser put the model's reasoning inside the content, between
 * `<think>` and `</think>`; shown as the answer, and sent back with it, it would cost the user
 * both times (D34, after svir D23). The splitter turns the content, as it streams, into text and
 * reasoning.
 *
 * A delta boundary can cut a marker anywhere, down to one character per delta (a tokenizer with no
 * single token for the tag), so a tail that might still become the awaited marker is held back
 * until the next push decides it. Everything else goes out at once: a chat UI shows text as it
 * arrives, and a push that is only a marker shows nothing (svir P7: a marker is not a visible
 * token).
 */

const open = "<think>"
const close = "</think>"

/** A run of content, either answer text or reasoning; its `text` is never empty. */
export interface ThinkPiece {
  readonly kind: "text" | "reasoning"
  readonly text: string
}

/** One answer's splitter: push each content delta in order, then `finish` at the answer's end. */
export interface ThinkSplitter {
  /** The pieces this delta settles, in order. */
  readonly push: (content: string) => ReadonlyArray<ThinkPiece>
  /** The tail held back at the end of the answer, as a piece of its own, if any. */
  readonly finish: () => ReadonlyArray<ThinkPiece>
}

/**
 * The length of the longest suffix of `text` that is a proper prefix of `marker`: the part that
 * might still become the marker. A whole marker was looked for first, so it is always shorter than
 * the marker. The markers are ASCII, so the held part is ASCII too and the cut before it never
 * falls between the two halves of a surrogate pair: the text before it goes out whole.
 */
const partialMarkerLength = (text: string, marker: string): number => {
  for (let length = Math.min(marker.length - 1, text.length); length > 0; length--) {
    if (text.endsWith(marker.slice(0, length))) return length
  }
  return 0
}

/**
 * A splitter for one answer. Outside reasoning only `<think>` is a marker and inside it only
 * `</think>`: a `</think>` with no `<think>` before it is text (D34, svir D23: a chat template that
 * opens the tag in the prompt leaves only the closing one, after reasoning already delivered as
 * text, and events are not taken back), and a `<think>` inside reasoning is reasoning.
 */
export const makeThinkSplitter = (): ThinkSplitter => {
  let inside = false
  // The held tail: a proper prefix of the marker awaited, at most 7 characters.
  let held = ""

  const kind = (): ThinkPiece["kind"] => (inside ? "reasoning" : "text")

  const push = (content: string): ReadonlyArray<ThinkPiece> => {
    // Nearly every delta: nothing held, and no `<` that could start a marker.
    if (held === "" && !content.includes("<")) {
      return content === "" ? [] : [{ kind: kind(), text: content }]
    }
    const pieces: Array<ThinkPiece> = []
    const emit = (text: string) => {
      if (text !== "") pieces.push({ kind: kind(), text })
    }
    const buffer = held + content
    let from = 0
    for (;;) {
      const marker = inside ? close : open
      const at = buffer.indexOf(marker, from)
      if (at === -1) break
      emit(buffer.slice(from, at))
      from = at + marker.length
      inside = !inside
    }
    const rest = buffer.slice(from)
    const keep = partialMarkerLength(rest, inside ? close : open)
    emit(rest.slice(0, rest.length - keep))
    held = rest.slice(rest.length - keep)
    return pieces
  }

  // svir's think-dangling-marker: a tail that never became a marker is what it looked like, text
  // outside reasoning ("done<thi") and reasoning inside it ("still thinking</thi").
  const finish = (): ReadonlyArray<ThinkPiece> => {
    const tail = held
    held = ""
    return tail === "" ? [] : [{ kind: kind(), text: tail }]
  }

  return { push, finish }
}
