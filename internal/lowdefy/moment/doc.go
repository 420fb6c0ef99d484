// Package moment re-implements the parts of moment.js 2.29.4 (the version
// used by Lowdefy's `_moment` operator and the nunjucks `date` filter) in the
// 'en' locale:
//
//   - Format(t, layout): all moment format tokens (Y YY YYYY YYYYY YYYYYY M Mo
//     MM MMM MMMM Q Qo D Do DD DDD DDDo DDDD d do dd ddd dddd e E w wo ww W Wo
//     WW gg gggg GG GGGG a A H HH h hh k kk hmm hmmss Hmm Hmmss m mm s ss S…
//     X x Z ZZ N… y…), [escaped text], \-escapes and the locale formats
//     LT LTS L LL LLL LLLL l ll lll llll. An empty layout is moment's default
//     "YYYY-MM-DDTHH:mm:ssZ".
//   - Parse(s, layout): forgiving (non-strict) parsing of the common tokens.
//   - FromValue(v): moment(v) for time.Time, Unix milliseconds and ISO 8601
//     strings (plus a few Date-parsable forms).
//   - Add/Subtract(t, n, unit), StartOf/EndOf(t, unit), Diff(a, b, unit,
//     precise) with moment's month arithmetic and rounding.
//   - Duration, DurationFromValue(v) (ms, "d.hh:mm:ss", ISO "P…", {days: 2})
//     and Humanize(d, withSuffix, thresholds) with moment's relative-time
//     thresholds and rounding; FromNow.
//   - FormatValue and HumanizeDuration: Lowdefy's `_moment.format` and
//     `_moment.humanizeDuration` methods.
//
// Time zones: a time.Time is formatted in its own location (moment's "local
// mode" with that location as the local zone). Lowdefy's server runs moment in
// the process zone; callers wanting the same output pass times in that zone
// (UTC on a typical server). FromValue and Parse return UTC unless the input
// carries an offset. Only the 'en' locale is available; FormatValue and
// HumanizeDuration reject other locales.
package moment
