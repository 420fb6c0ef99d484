// Interruptible implementations of the built-ins whose native versions loop over a length or
// a string without ever returning to the VM, where Runtime.Interrupt is checked. The Go
// wrappers in builtins*.go call them only past a size (nativeMax) where the native loop
// could outlast the time limit; below it they call the faster natives. They follow
// ECMA-262 closely enough for ordinary arrays and strings; the differences are noted.
//
// The file is one function expression, called once per runtime (before the built-ins are
// frozen) with h, the Go helpers:
//   h.tooLarge(what, n, unit)  the RangeError to throw for a result over the size limit
//   h.maxElems(), h.maxChars() the size limits of the current evaluation
//   h.concat(parts)            the concatenation of an array of strings, within the limit
//   h.substitute(matched, str, position, captures, groups, template)  GetSubstitution
//   h.sort(items, comparefn)   a new array of the items of the plain array items, sorted
//                              stably as Array.prototype.sort orders them
// It returns an object of functions, called with the receiver as this.
(function (h) {
  "use strict";
  const { apply, construct } = Reflect;
  const isArray = Array.isArray;
  const ArrayCtor = Array;
  const RegExpCtor = RegExp;
  const regExpProtoExec = RegExp.prototype.exec;
  const codePointAt = String.prototype.codePointAt;
  const stringSlice = String.prototype.slice;
  const stringIndexOf = String.prototype.indexOf;
  const stringIncludes = String.prototype.includes;
  const trunc = Math.trunc;
  const symSpecies = Symbol.species;
  const symSpreadable = Symbol.isConcatSpreadable;
  const MAX_LENGTH = 2 ** 53 - 1;

  function toIntegerOrInfinity(v) {
    const n = +v;
    if (n !== n) return 0;
    if (n === Infinity || n === -Infinity) return n;
    return trunc(n) + 0;
  }
  function toLength(v) {
    const n = toIntegerOrInfinity(v);
    return n <= 0 ? 0 : n < MAX_LENGTH ? n : MAX_LENGTH;
  }
  // relative resolves a relative index argument (slice, fill, ...) against len.
  function relative(v, len, dflt) {
    if (v === undefined) return dflt;
    const r = toIntegerOrInfinity(v);
    if (r < 0) return len + r > 0 ? len + r : 0;
    return r < len ? r : len;
  }
  function requireCallable(f, what) {
    if (typeof f !== "function") throw new TypeError(`${what}: ${typeof f === "symbol" ? "symbol" : String(f)} is not a function`);
  }
  function isObject(v) {
    return v !== null && (typeof v === "object" || typeof v === "function");
  }
  function arraySpeciesCreate(O, n) {
    if (!isArray(O)) return new ArrayCtor(n);
    let C = O.constructor;
    if (isObject(C)) {
      C = C[symSpecies];
      if (C === null) C = undefined;
    }
    if (C === undefined) return new ArrayCtor(n);
    return construct(C, [n]);
  }
  function checkNewLength(n, what) {
    if (n > MAX_LENGTH) throw new TypeError(`${what}: the new length exceeds 2^53 - 1`);
  }
  function checkElems(n, what) {
    if (n > h.maxElems()) throw h.tooLarge(what, n, "elements");
  }
  function flattenInto(target, source, sourceLen, start, depth, mapper, thisArg) {
    let targetIndex = start;
    for (let k = 0; k < sourceLen; k++) {
      if (!(k in source)) continue;
      let element = source[k];
      if (mapper !== undefined) element = apply(mapper, thisArg, [element, k, source]);
      if (depth > 0 && isArray(element)) {
        targetIndex = flattenInto(target, element, toLength(element.length), targetIndex, depth - 1);
      } else {
        checkNewLength(targetIndex + 1, "Array.prototype.flat");
        target[targetIndex++] = element;
      }
    }
    return targetIndex;
  }

  // RegExpExec of ECMA-262.
  function regExpExec(R, S) {
    const exec = R.exec;
    if (typeof exec === "function") {
      const result = apply(exec, R, [S]);
      if (result !== null && !isObject(result)) throw new TypeError("RegExp exec method returned something other than an Object or null");
      return result;
    }
    return apply(regExpProtoExec, R, [S]);
  }
  function advance(S, index, unicode) {
    if (!unicode || index + 1 >= S.length) return index + 1;
    return index + (apply(codePointAt, S, [index]) > 0xffff ? 2 : 1);
  }
  function speciesConstructor(O, dflt) {
    const C = O.constructor;
    if (C === undefined) return dflt;
    if (!isObject(C)) throw new TypeError("object.constructor is not an object");
    const S = C[symSpecies];
    return S === undefined || S === null ? dflt : S;
  }
  function flagsOf(rx) {
    return `${rx.flags}`;
  }
  // builder collects the parts of a string; it concatenates them in chunks, so that a
  // result made of millions of small parts is not held as millions of values.
  function builder() {
    let parts = [];
    const chunks = [];
    return {
      push(s) {
        if (s.length === 0) return;
        parts.push(s);
        if (parts.length === 4096) {
          chunks.push(h.concat(parts));
          parts = [];
        }
      },
      done() {
        chunks.push(h.concat(parts));
        return h.concat(chunks);
      },
    };
  }

  const array = {
    concat(...items) {
      const O = Object(this);
      const A = arraySpeciesCreate(O, 0);
      let n = 0;
      items.unshift(O);
      for (let i = 0; i < items.length; i++) {
        const E = items[i];
        let spreadable = false;
        if (isObject(E)) {
          const s = E[symSpreadable];
          spreadable = s !== undefined ? !!s : isArray(E);
        }
        if (spreadable) {
          const len = toLength(E.length);
          checkNewLength(n + len, "Array.prototype.concat");
          for (let k = 0; k < len; k++, n++) if (k in E) A[n] = E[k];
        } else {
          checkNewLength(n + 1, "Array.prototype.concat");
          A[n++] = E;
        }
      }
      A.length = n;
      return A;
    },
    copyWithin(target, start, end) {
      const O = Object(this);
      const len = toLength(O.length);
      let to = relative(target, len, 0);
      let from = relative(start, len, 0);
      const final = relative(end, len, len);
      let count = final - from < len - to ? final - from : len - to;
      let dir = 1;
      if (from < to && to < from + count) {
        dir = -1;
        from += count - 1;
        to += count - 1;
      }
      for (; count > 0; count--, from += dir, to += dir) {
        if (from in O) O[to] = O[from];
        else delete O[to];
      }
      return O;
    },
    every(fn, thisArg) {
      const O = Object(this);
      const len = toLength(O.length);
      requireCallable(fn, "Array.prototype.every");
      for (let k = 0; k < len; k++) if (k in O && !apply(fn, thisArg, [O[k], k, O])) return false;
      return true;
    },
    fill(value, start, end) {
      const O = Object(this);
      const len = toLength(O.length);
      const final = relative(end, len, len);
      for (let k = relative(start, len, 0); k < final; k++) O[k] = value;
      return O;
    },
    filter(fn, thisArg) {
      const O = Object(this);
      const len = toLength(O.length);
      requireCallable(fn, "Array.prototype.filter");
      const A = arraySpeciesCreate(O, 0);
      let to = 0;
      for (let k = 0; k < len; k++) {
        if (!(k in O)) continue;
        const v = O[k];
        if (apply(fn, thisArg, [v, k, O])) A[to++] = v;
      }
      return A;
    },
    find(fn, thisArg) {
      const O = Object(this);
      const len = toLength(O.length);
      requireCallable(fn, "Array.prototype.find");
      for (let k = 0; k < len; k++) {
        const v = O[k];
        if (apply(fn, thisArg, [v, k, O])) return v;
      }
      return undefined;
    },
    findIndex(fn, thisArg) {
      const O = Object(this);
      const len = toLength(O.length);
      requireCallable(fn, "Array.prototype.findIndex");
      for (let k = 0; k < len; k++) if (apply(fn, thisArg, [O[k], k, O])) return k;
      return -1;
    },
    findLast(fn, thisArg) {
      const O = Object(this);
      const len = toLength(O.length);
      requireCallable(fn, "Array.prototype.findLast");
      for (let k = len - 1; k >= 0; k--) {
        const v = O[k];
        if (apply(fn, thisArg, [v, k, O])) return v;
      }
      return undefined;
    },
    findLastIndex(fn, thisArg) {
      const O = Object(this);
      const len = toLength(O.length);
      requireCallable(fn, "Array.prototype.findLastIndex");
      for (let k = len - 1; k >= 0; k--) if (apply(fn, thisArg, [O[k], k, O])) return k;
      return -1;
    },
    flat(depth) {
      const O = Object(this);
      const len = toLength(O.length);
      let d = 1;
      if (depth !== undefined) {
        d = toIntegerOrInfinity(depth);
        if (d < 0) d = 0;
      }
      const A = arraySpeciesCreate(O, 0);
      flattenInto(A, O, len, 0, d);
      return A;
    },
    flatMap(fn, thisArg) {
      const O = Object(this);
      const len = toLength(O.length);
      requireCallable(fn, "Array.prototype.flatMap");
      const A = arraySpeciesCreate(O, 0);
      flattenInto(A, O, len, 0, 1, fn, thisArg);
      return A;
    },
    forEach(fn, thisArg) {
      const O = Object(this);
      const len = toLength(O.length);
      requireCallable(fn, "Array.prototype.forEach");
      for (let k = 0; k < len; k++) if (k in O) apply(fn, thisArg, [O[k], k, O]);
      return undefined;
    },
    includes(search, fromIndex) {
      const O = Object(this);
      const len = toLength(O.length);
      if (len === 0) return false;
      const nan = search !== search;
      for (let k = relative(fromIndex, len, 0); k < len; k++) {
        const v = O[k];
        if (v === search || (nan && v !== v)) return true;
      }
      return false;
    },
    indexOf(search, fromIndex) {
      const O = Object(this);
      const len = toLength(O.length);
      if (len === 0) return -1;
      for (let k = relative(fromIndex, len, 0); k < len; k++) if (k in O && O[k] === search) return k;
      return -1;
    },
    lastIndexOf(search, fromIndex) {
      const O = Object(this);
      const len = toLength(O.length);
      if (len === 0) return -1;
      const n = arguments.length > 1 ? toIntegerOrInfinity(fromIndex) : len - 1;
      if (n === -Infinity) return -1;
      for (let k = n >= 0 ? (n < len - 1 ? n : len - 1) : len + n; k >= 0; k--) if (k in O && O[k] === search) return k;
      return -1;
    },
    map(fn, thisArg) {
      const O = Object(this);
      const len = toLength(O.length);
      requireCallable(fn, "Array.prototype.map");
      const A = arraySpeciesCreate(O, len);
      for (let k = 0; k < len; k++) if (k in O) A[k] = apply(fn, thisArg, [O[k], k, O]);
      return A;
    },
    reduce(fn, ...initial) {
      const O = Object(this);
      const len = toLength(O.length);
      requireCallable(fn, "Array.prototype.reduce");
      let k = 0, acc;
      if (initial.length > 0) acc = initial[0];
      else {
        while (k < len && !(k in O)) k++;
        if (k >= len) throw new TypeError("Reduce of empty array with no initial value");
        acc = O[k++];
      }
      for (; k < len; k++) if (k in O) acc = fn(acc, O[k], k, O);
      return acc;
    },
    reduceRight(fn, ...initial) {
      const O = Object(this);
      const len = toLength(O.length);
      requireCallable(fn, "Array.prototype.reduceRight");
      let k = len - 1, acc;
      if (initial.length > 0) acc = initial[0];
      else {
        while (k >= 0 && !(k in O)) k--;
        if (k < 0) throw new TypeError("Reduce of empty array with no initial value");
        acc = O[k--];
      }
      for (; k >= 0; k--) if (k in O) acc = fn(acc, O[k], k, O);
      return acc;
    },
    reverse() {
      const O = Object(this);
      const len = toLength(O.length);
      const middle = trunc(len / 2);
      for (let lower = 0; lower < middle; lower++) {
        const upper = len - lower - 1;
        const lowerExists = lower in O, upperExists = upper in O;
        const lowerValue = lowerExists ? O[lower] : undefined;
        const upperValue = upperExists ? O[upper] : undefined;
        if (upperExists) O[lower] = upperValue;
        else if (lowerExists) delete O[lower];
        if (lowerExists) O[upper] = lowerValue;
        else if (upperExists) delete O[upper];
      }
      return O;
    },
    shift() {
      const O = Object(this);
      const len = toLength(O.length);
      if (len === 0) {
        O.length = 0;
        return undefined;
      }
      const first = O[0];
      for (let k = 1; k < len; k++) {
        if (k in O) O[k - 1] = O[k];
        else delete O[k - 1];
      }
      delete O[len - 1];
      O.length = len - 1;
      return first;
    },
    slice(start, end) {
      const O = Object(this);
      const len = toLength(O.length);
      let k = relative(start, len, 0);
      const final = relative(end, len, len);
      const A = arraySpeciesCreate(O, final - k > 0 ? final - k : 0);
      let n = 0;
      for (; k < final; k++, n++) if (k in O) A[n] = O[k];
      A.length = n;
      return A;
    },
    some(fn, thisArg) {
      const O = Object(this);
      const len = toLength(O.length);
      requireCallable(fn, "Array.prototype.some");
      for (let k = 0; k < len; k++) if (k in O && apply(fn, thisArg, [O[k], k, O])) return true;
      return false;
    },
    // sort keeps holes last and deletes them, as ECMA-262 does.
    sort(comparefn) {
      if (comparefn !== undefined) requireCallable(comparefn, "Array.prototype.sort");
      const O = Object(this);
      const len = toLength(O.length);
      const items = [];
      for (let k = 0; k < len; k++) if (k in O) items.push(O[k]);
      const sorted = h.sort(items, comparefn);
      let i = 0;
      for (; i < sorted.length; i++) O[i] = sorted[i];
      for (; i < len; i++) if (i in O) delete O[i];
      return O;
    },
    splice(start, deleteCount, ...items) {
      const O = Object(this);
      const len = toLength(O.length);
      const actualStart = relative(start, len, 0);
      let del;
      if (arguments.length === 0) del = 0;
      else if (arguments.length === 1) del = len - actualStart;
      else {
        del = toIntegerOrInfinity(deleteCount);
        del = del < 0 ? 0 : del < len - actualStart ? del : len - actualStart;
      }
      const itemCount = items.length;
      checkNewLength(len + itemCount - del, "Array.prototype.splice");
      const A = arraySpeciesCreate(O, del);
      for (let k = 0; k < del; k++) {
        const from = actualStart + k;
        if (from in O) A[k] = O[from];
      }
      A.length = del;
      if (itemCount < del) {
        for (let k = actualStart; k < len - del; k++) {
          const from = k + del, to = k + itemCount;
          if (from in O) O[to] = O[from];
          else delete O[to];
        }
        for (let k = len; k > len - del + itemCount; k--) delete O[k - 1];
      } else if (itemCount > del) {
        for (let k = len - del; k > actualStart; k--) {
          const from = k + del - 1, to = k + itemCount - 1;
          if (from in O) O[to] = O[from];
          else delete O[to];
        }
      }
      for (let k = 0; k < itemCount; k++) O[actualStart + k] = items[k];
      O.length = len - del + itemCount;
      return A;
    },
    toReversed() {
      const O = Object(this);
      const len = toLength(O.length);
      checkElems(len, "Array.prototype.toReversed");
      const A = new ArrayCtor(len);
      for (let k = 0; k < len; k++) A[k] = O[len - k - 1];
      return A;
    },
    toSorted(comparefn) {
      if (comparefn !== undefined) requireCallable(comparefn, "Array.prototype.toSorted");
      const O = Object(this);
      const len = toLength(O.length);
      checkElems(len, "Array.prototype.toSorted");
      const items = new ArrayCtor(len);
      for (let k = 0; k < len; k++) items[k] = O[k];
      return h.sort(items, comparefn);
    },
    toSpliced(start, skipCount, ...items) {
      const O = Object(this);
      const len = toLength(O.length);
      const actualStart = relative(start, len, 0);
      let skip;
      if (arguments.length === 0) skip = 0;
      else if (arguments.length === 1) skip = len - actualStart;
      else {
        skip = toIntegerOrInfinity(skipCount);
        skip = skip < 0 ? 0 : skip < len - actualStart ? skip : len - actualStart;
      }
      const newLen = len + items.length - skip;
      checkNewLength(newLen, "Array.prototype.toSpliced");
      checkElems(newLen, "Array.prototype.toSpliced");
      const A = new ArrayCtor(newLen);
      let i = 0, r = actualStart + skip;
      for (; i < actualStart; i++) A[i] = O[i];
      for (let k = 0; k < items.length; k++) A[i++] = items[k];
      for (; i < newLen; i++, r++) A[i] = O[r];
      return A;
    },
    unshift(...items) {
      const O = Object(this);
      const len = toLength(O.length);
      const argCount = items.length;
      if (argCount > 0) {
        checkNewLength(len + argCount, "Array.prototype.unshift");
        for (let k = len; k > 0; k--) {
          const from = k - 1, to = k + argCount - 1;
          if (from in O) O[to] = O[from];
          else delete O[to];
        }
        for (let j = 0; j < argCount; j++) O[j] = items[j];
      }
      O.length = len + argCount;
      return len + argCount;
    },
    with(index, value) {
      const O = Object(this);
      const len = toLength(O.length);
      const rel = toIntegerOrInfinity(index);
      const actual = rel >= 0 ? rel : len + rel;
      if (actual >= len || actual < 0) throw new RangeError("Array.prototype.with: index out of range");
      checkElems(len, "Array.prototype.with");
      const A = new ArrayCtor(len);
      for (let k = 0; k < len; k++) A[k] = k === actual ? value : O[k];
      return A;
    },
    // from is Array.from for an array-like without an iterator; C is the this value, used
    // as a constructor when isConstructor.
    from(C, isConstructor, arrayLike, mapfn, thisArg) {
      const len = toLength(arrayLike.length);
      const A = isConstructor ? construct(C, [len]) : new ArrayCtor(len);
      for (let k = 0; k < len; k++) {
        const v = arrayLike[k];
        A[k] = mapfn === undefined ? v : apply(mapfn, thisArg, [v, k]);
      }
      A.length = len;
      return A;
    },
  };

  const string = {
    // split of S by the string R, at most lim pieces.
    split(S, R, lim) {
      const A = [];
      if (lim === 0) return A;
      const max = h.maxElems();
      const size = S.length, r = R.length;
      if (r === 0) {
        for (let i = 0; i < size && A.length < lim; i++) {
          A.push(S[i]);
          if (A.length > max) throw h.tooLarge("String.prototype.split", A.length, "elements");
        }
        return A;
      }
      let p = 0, q;
      while ((q = apply(stringIndexOf, S, [R, p])) !== -1) {
        A.push(apply(stringSlice, S, [p, q]));
        if (A.length === lim) return A;
        if (A.length > max) throw h.tooLarge("String.prototype.split", A.length, "elements");
        p = q + r;
      }
      A.push(apply(stringSlice, S, [p]));
      return A;
    },
    // replace of the string search in S (the first occurrence, or every one when all).
    replace(S, search, replaceValue, all, what) {
      const functional = typeof replaceValue === "function";
      if (!functional) replaceValue = `${replaceValue}`;
      const sLen = search.length, adv = sLen > 0 ? sLen : 1, max = h.maxChars();
      const b = builder();
      let total = S.length, end = 0;
      let p = apply(stringIndexOf, S, [search, 0]);
      if (p === -1) return S;
      while (p !== -1) {
        const repl = functional ? `${replaceValue(search, p, S)}` : h.substitute(search, S, p, [], undefined, replaceValue);
        total += repl.length - sLen;
        if (total > max) throw h.tooLarge(what, total, "characters");
        b.push(apply(stringSlice, S, [end, p]));
        b.push(repl);
        end = p + sLen;
        if (!all) break;
        p = p + adv > S.length ? -1 : apply(stringIndexOf, S, [search, p + adv]);
      }
      b.push(apply(stringSlice, S, [end]));
      return b.done();
    },
  };

  const regexp = {
    // match is RegExp.prototype[Symbol.match] for a global rx.
    match(rx, S) {
      const flags = flagsOf(rx);
      if (!apply(stringIncludes, flags, ["g"])) return regExpExec(rx, S);
      const unicode = apply(stringIncludes, flags, ["u"]) || apply(stringIncludes, flags, ["v"]);
      const max = h.maxElems();
      rx.lastIndex = 0;
      const A = [];
      for (;;) {
        const result = regExpExec(rx, S);
        if (result === null) return A.length === 0 ? null : A;
        const m = `${result[0]}`;
        A.push(m);
        if (A.length > max) throw h.tooLarge("RegExp.prototype[Symbol.match]", A.length, "elements");
        if (m === "") rx.lastIndex = advance(S, toLength(rx.lastIndex), unicode);
      }
    },
    // replace is RegExp.prototype[Symbol.replace]. Unlike ECMA-262, which runs every exec
    // before the first replacement, it replaces each match as it is found, so that it holds
    // the parts of the result rather than every match object; this is observable only to a
    // replacer function that changes the RegExp.
    replace(rx, S, replaceValue) {
      const functional = typeof replaceValue === "function";
      if (!functional) replaceValue = `${replaceValue}`;
      const flags = flagsOf(rx);
      const global = apply(stringIncludes, flags, ["g"]);
      let unicode = false;
      if (global) {
        unicode = apply(stringIncludes, flags, ["u"]) || apply(stringIncludes, flags, ["v"]);
        rx.lastIndex = 0;
      }
      const max = h.maxChars();
      const b = builder();
      let total = S.length, next = 0, found = false;
      for (;;) {
        const result = regExpExec(rx, S);
        if (result === null) break;
        const nCaptures = Math.max(toLength(result.length) - 1, 0);
        const matched = `${result[0]}`;
        if (global && matched === "") rx.lastIndex = advance(S, toLength(rx.lastIndex), unicode);
        const position = Math.max(Math.min(toIntegerOrInfinity(result.index), S.length), 0);
        const captures = [];
        for (let n = 1; n <= nCaptures; n++) {
          const c = result[n];
          captures.push(c === undefined ? c : `${c}`);
        }
        let groups = result.groups;
        let replacement;
        if (functional) {
          const args = [matched, ...captures, position, S];
          if (groups !== undefined) args.push(groups);
          replacement = `${apply(replaceValue, undefined, args)}`;
        } else {
          if (groups !== undefined) groups = Object(groups);
          replacement = h.substitute(matched, S, position, captures, groups, replaceValue);
        }
        if (position >= next) {
          total += replacement.length - matched.length;
          if (total > max) throw h.tooLarge("RegExp.prototype[Symbol.replace]", total, "characters");
          b.push(apply(stringSlice, S, [next, position]));
          b.push(replacement);
          next = position + matched.length;
          found = true;
        }
        if (!global) break;
      }
      if (!found) return S;
      if (next < S.length) b.push(apply(stringSlice, S, [next]));
      return b.done();
    },
    // split is RegExp.prototype[Symbol.split].
    split(rx, S, limit) {
      const C = speciesConstructor(rx, RegExpCtor);
      const flags = flagsOf(rx);
      const unicode = apply(stringIncludes, flags, ["u"]) || apply(stringIncludes, flags, ["v"]);
      const splitter = construct(C, [rx, apply(stringIncludes, flags, ["y"]) ? flags : flags + "y"]);
      const A = [];
      const lim = limit === undefined ? 2 ** 32 - 1 : limit >>> 0;
      if (lim === 0) return A;
      const size = S.length;
      if (size === 0) return regExpExec(splitter, S) !== null ? A : [S];
      const max = h.maxElems();
      let p = 0, q = 0;
      while (q < size) {
        splitter.lastIndex = q;
        const z = regExpExec(splitter, S);
        if (z === null) {
          q = advance(S, q, unicode);
          continue;
        }
        const e = Math.min(toLength(splitter.lastIndex), size);
        if (e === p) {
          q = advance(S, q, unicode);
          continue;
        }
        A.push(apply(stringSlice, S, [p, q]));
        if (A.length === lim) return A;
        p = e;
        const nCaptures = Math.max(toLength(z.length) - 1, 0);
        for (let i = 1; i <= nCaptures; i++) {
          A.push(z[i]);
          if (A.length === lim) return A;
        }
        if (A.length > max) throw h.tooLarge("RegExp.prototype[Symbol.split]", A.length, "elements");
        q = p;
      }
      A.push(apply(stringSlice, S, [p]));
      return A;
    },
  };

  return { array, string, regexp };
})
