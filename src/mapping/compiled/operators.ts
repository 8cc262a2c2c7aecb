// Binary operators, as jsonata 2.x's evaluateBinary and its helpers: `and`/`or` short-circuit on jsonata
// truthiness, arithmetic and comparison refuse non-numbers/mixed types with jsonata's error codes, `=` is deep.
import { isDeepEqual, isNumeric, jerr, toBoolean, toStr, type Fn } from './runtime';
import { Unsupported } from './unsupported';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Node = any;

export function compileBinary(node: Node, compileNode: (n: Node) => Fn): Fn {
  const op = node.value;
  const lhs = compileNode(node.lhs);
  const rhs = compileNode(node.rhs);
  const boolize = (v: any) => toBoolean(v) ?? false;
  const at = (fn: (l: any, r: any) => any): Fn => (input, env) => {
    const l = lhs(input, env);
    const r = rhs(input, env);
    return fn(l, r);
  };
  switch (op) {
    case 'and': return (input, env) => boolize(lhs(input, env)) && boolize(rhs(input, env));
    case 'or': return (input, env) => boolize(lhs(input, env)) || boolize(rhs(input, env));
    case '+': case '-': case '*': case '/': case '%': return at((l, r) => numeric(l, r, op));
    case '=': return at((l, r) => (l === undefined || r === undefined ? false : isDeepEqual(l, r)));
    case '!=': return at((l, r) => (l === undefined || r === undefined ? false : !isDeepEqual(l, r)));
    case '<': case '<=': case '>': case '>=': return at((l, r) => compare(l, r, op));
    case '&': return at((l, r) => (l === undefined ? '' : toStr(l)).concat(r === undefined ? '' : toStr(r)));
    case 'in': return at((l, r) => (l === undefined || r === undefined ? false : (Array.isArray(r) ? r : [r]).some((x: any) => x === l)));
    case '..': return at(range);
    default: throw new Unsupported(`operator ${op}`);
  }
}

export function numeric(l: any, r: any, op: string): any {
  if (l !== undefined && !isNumeric(l)) throw jerr('T2001', { value: l });
  if (r !== undefined && !isNumeric(r)) throw jerr('T2002', { value: r });
  if (l === undefined || r === undefined) return undefined;
  return op === '+' ? l + r : op === '-' ? l - r : op === '*' ? l * r : op === '/' ? l / r : l % r;
}

export function compare(l: any, r: any, op: string): any {
  const lt = typeof l;
  const rt = typeof r;
  const lc = lt === 'undefined' || lt === 'string' || lt === 'number';
  const rc = rt === 'undefined' || rt === 'string' || rt === 'number';
  if (!lc || !rc) throw jerr('T2010', { value: !(lt === 'string' || lt === 'number') ? l : r });
  if (lt === 'undefined' || rt === 'undefined') return undefined;
  if (lt !== rt) throw jerr('T2009', { value: l });
  return op === '<' ? l < r : op === '<=' ? l <= r : op === '>' ? l > r : l >= r;
}

function range(l: any, r: any): any {
  if (l !== undefined && !Number.isInteger(l)) throw jerr('T2003', { value: l });
  if (r !== undefined && !Number.isInteger(r)) throw jerr('T2004', { value: r });
  if (l === undefined || r === undefined || l > r) return undefined;
  const size = r - l + 1;
  if (size > 1e7) throw jerr('D2014', { value: size });
  const result: any = new Array(size);
  for (let item = l, i = 0; item <= r; item++, i++) result[i] = item;
  result.sequence = true;
  return result;
}

