// The firewall's bound on costly work. Every recognizer is linear in the text, but a few steps cost
// far more per candidate than the scan that finds it: libphonenumber takes 30–100 µs to parse one
// digit run and 300–600 µs to search one for several numbers, an address costs several regexes over
// a window. A text made of nothing but such candidates (800 KB of one digit pattern took 13.9 s)
// must not hold the event loop, so these steps draw on a budget: a share per text (or per slice of
// a long text, see slices.ts) and a total per request. A candidate met once the budget is spent is
// decided by a cheaper rule that errs on the side of masking (see the recognizers).
//
// Units are rough microseconds on one core, so that a budget reads as a time bound.

/** The most one text (or one slice of a long text) may spend: about 2.5 ms. */
export const TEXT_UNITS = 2_500;
/** The most one request may spend over all its texts: about 60 ms. */
export const REQUEST_UNITS = 60_000;

/** What the costly steps are charged. */
export const COST = {
  /** One `parsePhoneNumberFromString` with `isValid()`. */
  phoneParse: 100,
  /** One `findNumbers` over a digit run. */
  phoneSearch: 800,
  /** Reading the street and town around one postcode. */
  address: 10,
} as const;

export class WorkBudget {
  #request: number;
  readonly #perText: number;
  #text: number;

  constructor(requestUnits = REQUEST_UNITS, textUnits = TEXT_UNITS) {
    this.#request = requestUnits;
    this.#perText = textUnits;
    this.#text = textUnits;
  }

  /**
   * No bound: what the recognizers called on their own get (tests, the evaluation), so that they
   * always give the reference result. A firewall (firewall.ts) is always bounded.
   */
  static unbounded(): WorkBudget {
    return new WorkBudget(Infinity, Infinity);
  }

  /** A new text (or slice) begins: it gets its own share, within what the request has left. */
  startText(): void {
    this.#text = this.#perText;
  }

  /** Takes `units` when both the text's share and the request's total have them. */
  take(units: number): boolean {
    if (units > this.#text || units > this.#request) return false;
    this.#text -= units;
    this.#request -= units;
    return true;
  }

  /** Units the request has left (for tests and the bench). */
  get left(): number {
    return this.#request;
  }
}
