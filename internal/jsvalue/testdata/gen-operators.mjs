// Writes operators.json: ==, ===, <, <= and + over a set of named values,
// as JavaScript computes them. TestOperatorsOracle compares the Go
// implementation with it. Regenerate with Node (TZ=UTC):
//   TZ=UTC node gen-operators.mjs > operators.json
const values = {
  null: null, undefined: undefined, true: true, false: false, zero: 0, negzero: -0, one: 1, two: 2, ten: 10,
  nan: NaN, inf: Infinity, str0: '0', str1: '1', str10: '10', str9: '9', strEmpty: '', strSpace: ' ', strA: 'a',
  strB: 'b', strUpperA: 'A', strAbc: 'abc', strTrue: 'true', strOneSpaced: ' 1 ', strHex: '0x10',
  strBMPHigh: '\uffff', strAstral: '\u{1F600}', strEAcute: 'é', arrEmpty: [], arrOne: [1], arrA: ['a'],
  arr12: [1, 2], arrNull: [null], obj: {}, date0: new Date(0), date1: new Date(1),
};
const names = Object.keys(values);
const out = { names, eq: {}, strict: {}, lt: {}, le: {}, add: {} };
for (const a of names) {
  for (const b of names) {
    const x = values[a], y = values[b], k = a + ' ' + b;
    out.eq[k] = x == y;
    out.strict[k] = x === y;
    out.lt[k] = x < y;
    out.le[k] = x <= y;
    const s = x + y;
    out.add[k] = typeof s === 'number' ? { n: Number.isNaN(s) ? 'NaN' : String(s) } : { s };
  }
}
process.stdout.write(JSON.stringify(out) + '\n');
