// The syntax errors of Go's encoding/json, word for word: kube-apiserver
// reports a malformed body with the message its JSON scanner gives
// ("invalid character '}' looking for beginning of object key string",
// "unexpected end of JSON input"), and V8's JSON.parse words them otherwise.
//
// Contract: goJsonSyntaxError(text) runs Go's scanner state machine over the
// UTF-8 bytes of `text` and returns the message of the first syntax error, or
// undefined when the text is one valid JSON value (surrounded by whitespace).
// It is called only after JSON.parse has failed, so it need not be fast.

type Step = (c: number) => void;

const SPACE = new Set([0x20, 0x09, 0x0d, 0x0a]);
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

/** Go's quoteChar: the byte as a quoted character ('x', '\n', '\x01', 'Ã' for a byte ≥ 0x80). */
function quoteChar(c: number): string {
  if (c === 0x27) return "'\\''";
  if (c === 0x22) return '\'"\'';
  return `'${goQuoteRune(c)}'`;
}

/** strconv.Quote of a one-rune string, without the surrounding quotes, for runes below 0x100. */
function goQuoteRune(c: number): string {
  switch (c) {
    case 0x07:
      return '\\a';
    case 0x08:
      return '\\b';
    case 0x0c:
      return '\\f';
    case 0x0a:
      return '\\n';
    case 0x0d:
      return '\\r';
    case 0x09:
      return '\\t';
    case 0x0b:
      return '\\v';
    case 0x5c:
      return '\\\\';
    default:
      break;
  }
  // Printable per Go's unicode.IsPrint: not C0/C1 controls, DEL, or the no-break space (U+00A0) or soft hyphen (U+00AD).
  if (c < 0x20 || c === 0x7f || (c >= 0x80 && c < 0xa0) || c === 0xad) return `\\x${c.toString(16).padStart(2, '0')}`;
  if (c === 0xa0) return '\\u00a0';
  return String.fromCharCode(c);
}

class SyntaxError extends Error {}

const enum Parse {
  ObjectKey,
  ObjectValue,
  ArrayValue,
}

export function goJsonSyntaxError(text: string): string | undefined {
  const bytes = Buffer.from(text, 'utf8');
  const stack: Parse[] = [];
  let endTop = false;
  const fail = (c: number, context: string): never => {
    throw new SyntaxError(`invalid character ${quoteChar(c)} ${context}`);
  };

  let step: Step;

  const beginValueOrEmpty: Step = (c) => {
    if (SPACE.has(c)) return;
    if (c === 0x5d /* ] */) return endValue(c);
    beginValue(c);
  };
  const beginValue: Step = (c) => {
    if (SPACE.has(c)) return;
    switch (c) {
      case 0x7b /* { */:
        step = beginStringOrEmpty;
        stack.push(Parse.ObjectKey);
        return;
      case 0x5b /* [ */:
        step = beginValueOrEmpty;
        stack.push(Parse.ArrayValue);
        return;
      case 0x22 /* " */:
        step = inString;
        return;
      case 0x2d /* - */:
        step = neg;
        return;
      case 0x30 /* 0 */:
        step = zero;
        return;
      case 0x74 /* t */:
        step = literal('true', 1);
        return;
      case 0x66 /* f */:
        step = literal('false', 1);
        return;
      case 0x6e /* n */:
        step = literal('null', 1);
        return;
      default:
        break;
    }
    if (c >= 0x31 && c <= 0x39) {
      step = digits;
      return;
    }
    fail(c, 'looking for beginning of value');
  };
  const beginStringOrEmpty: Step = (c) => {
    if (SPACE.has(c)) return;
    if (c === 0x7d /* } */) {
      stack[stack.length - 1] = Parse.ObjectValue;
      return endValue(c);
    }
    beginString(c);
  };
  const beginString: Step = (c) => {
    if (SPACE.has(c)) return;
    if (c === 0x22) {
      step = inString;
      return;
    }
    fail(c, 'looking for beginning of object key string');
  };
  const endValue: Step = (c) => {
    if (stack.length === 0) {
      step = endTopStep;
      endTop = true;
      return endTopStep(c);
    }
    if (SPACE.has(c)) {
      step = endValue;
      return;
    }
    switch (stack[stack.length - 1]) {
      case Parse.ObjectKey:
        if (c === 0x3a /* : */) {
          stack[stack.length - 1] = Parse.ObjectValue;
          step = beginValue;
          return;
        }
        return fail(c, 'after object key');
      case Parse.ObjectValue:
        if (c === 0x2c /* , */) {
          stack[stack.length - 1] = Parse.ObjectKey;
          step = beginString;
          return;
        }
        if (c === 0x7d /* } */) {
          stack.pop();
          step = endValue;
          if (stack.length === 0) endTop = true;
          return;
        }
        return fail(c, 'after object key:value pair');
      default:
        if (c === 0x2c) {
          step = beginValue;
          return;
        }
        if (c === 0x5d /* ] */) {
          stack.pop();
          step = endValue;
          if (stack.length === 0) endTop = true;
          return;
        }
        return fail(c, 'after array element');
    }
  };
  const endTopStep: Step = (c) => {
    if (!SPACE.has(c)) fail(c, 'after top-level value');
  };
  const inString: Step = (c) => {
    if (c === 0x22) {
      step = endValue;
      return;
    }
    if (c === 0x5c /* \ */) {
      step = inStringEscape;
      return;
    }
    if (c < 0x20) fail(c, 'in string literal');
  };
  const inStringEscape: Step = (c) => {
    if ([0x62, 0x66, 0x6e, 0x72, 0x74, 0x5c, 0x2f, 0x22].includes(c)) {
      step = inString;
      return;
    }
    if (c === 0x75 /* u */) {
      step = hexEscape(4);
      return;
    }
    fail(c, 'in string escape code');
  };
  const hexEscape = (left: number): Step => (c) => {
    if (!isHex(c)) fail(c, 'in \\u hexadecimal character escape');
    step = left === 1 ? inString : hexEscape(left - 1);
  };
  const neg: Step = (c) => {
    if (c === 0x30) {
      step = zero;
      return;
    }
    if (c >= 0x31 && c <= 0x39) {
      step = digits;
      return;
    }
    fail(c, 'in numeric literal');
  };
  const digits: Step = (c) => {
    if (isDigit(c)) return;
    zero(c);
  };
  const zero: Step = (c) => {
    if (c === 0x2e /* . */) {
      step = dot;
      return;
    }
    if (c === 0x65 || c === 0x45) {
      step = exponent;
      return;
    }
    endValue(c);
  };
  const dot: Step = (c) => {
    if (isDigit(c)) {
      step = dotDigits;
      return;
    }
    fail(c, 'after decimal point in numeric literal');
  };
  const dotDigits: Step = (c) => {
    if (isDigit(c)) return;
    if (c === 0x65 || c === 0x45) {
      step = exponent;
      return;
    }
    endValue(c);
  };
  const exponent: Step = (c) => {
    if (c === 0x2b || c === 0x2d) {
      step = exponentSign;
      return;
    }
    exponentSign(c);
  };
  const exponentSign: Step = (c) => {
    if (isDigit(c)) {
      step = exponentDigits;
      return;
    }
    fail(c, 'in exponent of numeric literal');
  };
  const exponentDigits: Step = (c) => {
    if (isDigit(c)) return;
    endValue(c);
  };
  const literal = (word: string, at: number): Step => (c) => {
    const want = word.charCodeAt(at);
    if (c !== want) fail(c, `in literal ${word} (expecting ${quoteChar(want)})`);
    step = at === word.length - 1 ? endValue : literal(word, at + 1);
  };

  step = beginValue;
  try {
    for (const c of bytes) step(c);
    // End of input: Go feeds one space, then the value must be complete.
    if (!endTop) step(0x20);
    if (!endTop) return 'unexpected end of JSON input';
    return undefined;
  } catch (err) {
    if (err instanceof SyntaxError) return err.message;
    throw err;
  }
}
