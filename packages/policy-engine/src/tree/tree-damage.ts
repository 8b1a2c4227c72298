/**
 * A tree that is not the shape the codec writes. Thrown where the value is refused, without a path: each object and
 * list the reader unwinds through adds its step (`within`), so a tree that reads cleanly never pays for paths.
 * `rooted` marks a path that is already complete (a declaration read where it is referenced, but placed where it is
 * declared); the message (`policy.mechanisms[0].event: is not a string`) is written once the path is.
 */
export class TreeDamage extends Error {
  /** Innermost first. */
  private readonly steps: Array<string | number> = [];
  private rooted = false;

  constructor(readonly problem: string) {
    super(problem);
  }

  /** This damage, one step further out. */
  within(step: string | number): this {
    if (!this.rooted) this.steps.push(step);
    return this;
  }

  /** The path is complete once `steps` (outermost first) are put in front of it. */
  root(...steps: Array<string | number>): this {
    if (this.rooted) return this;
    for (const step of [...steps].reverse()) this.steps.push(step);
    this.rooted = true;
    this.message = `${this.path()}: ${this.problem}`;
    return this;
  }

  private path(): string {
    let text = '';
    for (let index = this.steps.length - 1; index >= 0; index -= 1) {
      const step = this.steps[index];
      text += typeof step === 'number' ? `[${step}]` : text === '' ? String(step) : `.${String(step)}`;
    }
    return text;
  }
}

/** `error` one step further out when it is damage; anything else (a bug) unchanged. */
export function within(error: unknown, step: string | number): unknown {
  return error instanceof TreeDamage ? error.within(step) : error;
}
