// Random intents for comparing keys across hosts: a seeded generator (the seed is printed, so a
// failure can be replayed with ONCELY_TEST_SEED) of JSON documents with nesting, shuffled members,
// Unicode (astral characters, escapes, control characters), and numbers of every shape.

export function seed() {
  const s = process.env.ONCELY_TEST_SEED ? Number(process.env.ONCELY_TEST_SEED) : Math.floor(Math.random() * 2 ** 31);
  return s;
}

export function rng(s) {
  let x = s >>> 0 || 1;
  const next = () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 2 ** 32;
  };
  const int = (n) => Math.floor(next() * n);
  const pick = (a) => a[int(a.length)];
  return { next, int, pick };
}

const ALPHABET = ['a', 'b', 'z', 'A', '0', ' ', '_', '-', 'é', 'ß', '€', '中', '\u0000', '\u001f', '"', '\\', '/', '\u2028', '😀', '𝄞', '\ufffd', '\u007f'];

function str(r, max = 8) {
  let s = '';
  for (let i = r.int(max); i > 0; i--) s += r.pick(ALPHABET);
  return s;
}

function number(r) {
  switch (r.int(7)) {
    case 0:
      return r.int(1000) - 500;
    case 1:
      return (r.next() - 0.5) * 10 ** (r.int(40) - 20);
    case 2: {
      const v = new DataView(new ArrayBuffer(8));
      v.setUint32(0, Math.floor(r.next() * 2 ** 32));
      v.setUint32(4, Math.floor(r.next() * 2 ** 32));
      const d = v.getFloat64(0);
      return Number.isFinite(d) ? d : 1.5;
    }
    case 3:
      return r.pick([0, -0, 1e21, 1e-7, 5e-324, 1.7976931348623157e308, 9007199254740991, -9007199254740992, 0.1, 1 / 3]);
    case 4:
      return Math.round((r.next() - 0.5) * 2 ** 53);
    default:
      return r.next();
  }
}

function value(r, depth) {
  const k = depth > 3 ? r.int(4) : r.int(6);
  switch (k) {
    case 0:
      return str(r);
    case 1:
      return number(r);
    case 2:
      return r.pick([true, false, null]);
    case 3:
      return str(r, 3) + number(r);
    case 4: {
      const a = [];
      for (let i = r.int(4); i > 0; i--) a.push(value(r, depth + 1));
      return a;
    }
    default: {
      const o = {};
      for (let i = r.int(5); i > 0; i--) o[str(r, 5)] = value(r, depth + 1);
      return o;
    }
  }
}

/** JSON text of `v` with random whitespace (JSON.stringify, then spaces around structure). */
function text(r, v) {
  return JSON.stringify(v, null, r.pick([0, 1, '\t'])).replace(/\n/g, r.pick([' ', '', '  ']));
}

/** `n` random intents {scope, run, step, tool, args (JSON text on one line)}. */
export function randomIntents(s, n) {
  const r = rng(s);
  const out = [];
  for (let i = 0; i < n; i++) {
    const args = {};
    for (let j = r.int(6); j > 0; j--) args[str(r, 6) || 'k'] = value(r, 0);
    // Now and then an empty run or step id: an error both hosts must report alike.
    const id = (fallback) => (r.int(20) === 0 ? '' : str(r, 6) || fallback);
    out.push({ scope: str(r, 6) || 's', run: id('run'), step: id('step'), tool: str(r, 5) || 't', args: text(r, args) });
  }
  return out;
}
