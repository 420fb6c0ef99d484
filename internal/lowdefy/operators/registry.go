package operators

import (
	"maps"

	"github.com/mcpbridge/mcpbridge/internal/lazy"
)

// operatorSets are the operator sets of the parsers. Maps are built at run time, so the sets
// are built on first use rather than at init: a process that never evaluates an operator
// never runs this code.
type operatorSets struct {
	client, server, routine, build map[string]operatorFunc
}

// sets are the operator sets, built on first use.
var sets = lazy.Value[*operatorSets]{New: newOperatorSets}

func newOperatorSets() *operatorSets {
	// sharedOperators are in both the client and the server set.
	sharedOperators := map[string]operatorFunc{
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

	// client is operatorsClient.js plus the plugin operators.
	client := maps.Clone(sharedOperators)
	maps.Copy(client, map[string]operatorFunc{
		"_index": opIndex, "_actions": opActions, "_base64": opBase64Client, "_event_log": opEventLog,
		"_event": opEvent, "_global": opGlobal, "_input": opInput, "_location": opLocation, "_media": opMedia,
		"_menu": opMenu, "_request_details": opRequestDetails, "_request": opRequest, "_state": opState,
		"_url_query": opURLQuery,
	})

	// server is operatorsServer.js plus the plugin operators.
	server := maps.Clone(sharedOperators)
	maps.Copy(server, map[string]operatorFunc{
		"_base64": opBase64Server, "_hash": opHash, "_payload": opPayload, "_secret": opSecret,
	})

	// routine is the server set with the getters Lowdefy 4.x adds for
	// API endpoint routines: _step, _item and the routine's _state.
	routine := maps.Clone(server)
	maps.Copy(routine, map[string]operatorFunc{"_step": opStep, "_item": opItem, "_state": opState})

	// build is operatorsBuild.js.
	build := map[string]operatorFunc{}
	for _, n := range []string{"_and", "_args", "_array", "_date", "_divide", "_eq", "_function", "_get", "_gt", "_gte",
		"_if_none", "_if", "_intl", "_json", "_log", "_lt", "_lte", "_math", "_ne", "_not", "_number", "_object", "_operator",
		"_or", "_product", "_random", "_regex", "_string", "_subtract", "_sum", "_switch", "_type", "_uri"} {
		build[n] = sharedOperators[n]
	}
	build["_base64"] = opBase64Server
	build["_hash"] = opHash
	build["_env"] = opEnv

	return &operatorSets{client: client, server: server, routine: routine, build: build}
}

// Names returns the operator names of the client (server false) or server set.
func Names(server bool) []string {
	set := sets.Get().client
	if server {
		set = sets.Get().server
	}
	names := make([]string, 0, len(set))
	for k := range set {
		names = append(names, k)
	}
	return names
}
