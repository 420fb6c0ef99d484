package operators

import "maps"

// sharedOperators are in both the client and the server set.
var sharedOperators = map[string]operatorFunc{
	"_and": opAnd, "_args": opArgs, "_array": opArray, "_date": opDate, "_divide": opDivide, "_eq": opEq,
	"_function": opFunction, "_get": opGet, "_gt": comparison(">"), "_gte": comparison(">="),
	"_if_none": opIfNone, "_if": opIf, "_intl": opIntl, "_json": opJSON, "_log": opLog,
	"_lt": comparison("<"), "_lte": comparison("<="), "_math": opMath, "_ne": opNe, "_not": opNot,
	"_number": opNumber, "_object": opObject, "_operator": opOperator, "_or": opOr, "_product": opProduct,
	"_random": opRandom, "_regex": opRegex, "_string": opString, "_subtract": opSubtract, "_sum": opSum,
	"_switch": opSwitch, "_type": opType, "_uri": opURI, "_user": opUser,
	// plugin operator packages
	"_nunjucks": opNunjucks, "_uuid": opUUID, "_yaml": opYAML, "_moment": opMoment, "_diff": opDiff,
	"_change_case": opChangeCase, "_mql": opMQL,
	// Lowdefy 4.x
	"_js": opJS,
}

// clientOperators is operatorsClient.js plus the plugin operators.
var clientOperators = func() map[string]operatorFunc {
	m := maps.Clone(sharedOperators)
	maps.Copy(m, map[string]operatorFunc{
		"_index": opIndex, "_actions": opActions, "_base64": opBase64Client, "_event_log": opEventLog,
		"_event": opEvent, "_global": opGlobal, "_input": opInput, "_location": opLocation, "_media": opMedia,
		"_menu": opMenu, "_request_details": opRequestDetails, "_request": opRequest, "_state": opState,
		"_url_query": opURLQuery,
	})
	return m
}()

// serverOperators is operatorsServer.js plus the plugin operators.
var serverOperators = func() map[string]operatorFunc {
	m := maps.Clone(sharedOperators)
	maps.Copy(m, map[string]operatorFunc{
		"_base64": opBase64Server, "_hash": opHash, "_payload": opPayload, "_secret": opSecret,
	})
	return m
}()

// routineOperators is the server set with the getters Lowdefy 4.x adds for
// API endpoint routines: _step, _item and the routine's _state.
var routineOperators = func() map[string]operatorFunc {
	m := maps.Clone(serverOperators)
	maps.Copy(m, map[string]operatorFunc{"_step": opStep, "_item": opItem, "_state": opState})
	return m
}()

// buildOperators is operatorsBuild.js.
var buildOperators = func() map[string]operatorFunc {
	m := map[string]operatorFunc{}
	for _, n := range []string{"_and", "_args", "_array", "_date", "_divide", "_eq", "_function", "_get", "_gt", "_gte",
		"_if_none", "_if", "_intl", "_json", "_log", "_lt", "_lte", "_math", "_ne", "_not", "_number", "_object", "_operator",
		"_or", "_product", "_random", "_regex", "_string", "_subtract", "_sum", "_switch", "_type", "_uri"} {
		m[n] = sharedOperators[n]
	}
	m["_base64"] = opBase64Server
	m["_hash"] = opHash
	m["_env"] = opEnv
	return m
}()

// Names returns the operator names of the client (server false) or server set.
func Names(server bool) []string {
	set := clientOperators
	if server {
		set = serverOperators
	}
	names := make([]string, 0, len(set))
	for k := range set {
		names = append(names, k)
	}
	return names
}
