package pipeline

import (
	"strconv"
	"strings"

	"github.com/valyala/fastjson"

	"github.com/mcp-sanitize/mcp-sanitize/wire"
)

// guardInitialize checks an InitializeResult (2025-11-25: protocolVersion,
// serverInfo, capabilities, instructions) or a DiscoverResult
// (2026-07-28: supportedVersions, capabilities, instructions): the
// instructions a client hands to its model and the server's self
// description went through the string chain.
func guardInitialize(g *guardRun) {
	if g.body == nil {
		g.failShape("")
		return
	}
	g.obj(g.body, "", "capabilities", true)
	g.str(g.body, "", "instructions", false)
	if g.body.Exists("supportedVersions") {
		g.strArray(g.body, "", "supportedVersions")
	} else {
		g.str(g.body, "", "protocolVersion", true)
	}
	if si, ok := g.obj(g.body, "", "serverInfo", false); ok {
		g.str(si, "/serverInfo", "name", true)
		g.str(si, "/serverInfo", "version", true)
		g.str(si, "/serverInfo", "title", false)
		g.str(si, "/serverInfo", "description", false)
		g.str(si, "/serverInfo", "websiteUrl", false)
		g.icons(si, "/serverInfo")
	} else if g.body.Exists("protocolVersion") && g.fail == nil {
		g.failShape("/serverInfo") // required with protocolVersion (InitializeResult)
	}
}

// taskStatuses are the states of a Task.
var taskStatuses = []string{"working", "input_required", "completed", "failed", "cancelled"}

// guardTask checks what a server says of a task: a Task (tasks/get,
// tasks/cancel), a CreateTaskResult ({"task":Task}) or a ListTasksResult
// ({"tasks":[Task]}).
func guardTask(g *guardRun) {
	if g.body == nil {
		g.failShape("")
		return
	}
	switch {
	case g.body.Exists("tasks"):
		a, ok := g.arr(g.body, "", "tasks", true)
		if !ok {
			return
		}
		for i, t := range g.objItems(a, "/tasks") {
			g.task(t, "/tasks/"+strconv.Itoa(i))
		}
		g.str(g.body, "", "nextCursor", false)
	case g.body.Exists("task"):
		if t, ok := g.obj(g.body, "", "task", true); ok {
			g.task(t, "/task")
		}
	default:
		g.task(g.body, "")
	}
}

// task checks a Task's members; statusMessage is model-visible text.
func (g *guardRun) task(t *fastjson.Value, ptr string) {
	g.str(t, ptr, "taskId", true)
	g.oneOf(t, ptr, "status", true, taskStatuses...)
	g.str(t, ptr, "statusMessage", false)
	g.str(t, ptr, "createdAt", true)
	g.str(t, ptr, "lastUpdatedAt", true)
	if x := t.Get("ttl"); x == nil {
		g.failShape(ptr + "/ttl")
	} else if x.Type() != fastjson.TypeNull {
		g.num(t, ptr, "ttl", true)
	}
	g.num(t, ptr, "pollInterval", false)
}

// guardNotification checks the params of a server notification by its
// method (an unknown method's params are generic: every string went
// through the chain).
func guardNotification(g *guardRun) {
	m := g.method
	if m != "" && !strings.HasPrefix(m, "notifications/") {
		g.failReason(string(wire.ReasonKindMethod), "")
		return
	}
	if g.env {
		if g.doc.Exists("id") {
			g.failReason(string(wire.ReasonKindShape), "/id") // a notification has no id
			return
		}
	}
	p := g.body
	need := func() bool {
		if p == nil {
			g.failShape("")
			return false
		}
		return true
	}
	switch m {
	case wire.MethodNotifyMessage:
		if need() {
			g.oneOf(p, "", "level", true, "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
			g.str(p, "", "logger", false)
			if !p.Exists("data") {
				g.failShape("/data")
			}
		}
	case wire.MethodNotifyProgress:
		if need() {
			if x := p.Get("progressToken"); x == nil || x.Type() != fastjson.TypeString {
				g.num(p, "", "progressToken", true)
			}
			g.num(p, "", "progress", true)
			g.num(p, "", "total", false)
			g.str(p, "", "message", false)
		}
	case wire.MethodNotifyResourceUpdated:
		if need() {
			g.str(p, "", "uri", true)
		}
	case wire.MethodNotifyTasksStatus:
		if need() {
			g.task(p, "")
		}
	case wire.MethodNotifyCancelled:
		if p != nil {
			g.str(p, "", "reason", false)
		}
	case wire.MethodNotifyElicitationComplete:
		if need() {
			g.str(p, "", "elicitationId", true)
		}
	}
}

// writeNotificationError writes what takes the place of a refused
// notification: there is no request to answer, so the client gets a
// notifications/message of level warning from logger "mcp-sanitize"
// whose data holds our labels, code and reason (never the input); bare,
// its params.
func (p *pass) writeNotificationError(f *Error) {
	em := &p.em
	if p.envelope {
		em.rawString(`{"jsonrpc":"2.0","method":"notifications/message","params":`)
	}
	em.rawString(`{"level":"warning","logger":"mcp-sanitize","data":{`)
	p.writeErrorMeta(f)
	em.rawString(`}}`)
	if p.envelope {
		em.byte1('}')
	}
}

// guardRPCError checks a JSON-RPC error object: code an integer, message
// a string. The pass rewrote the object already (rpcerror.go: the
// message sanitized or mapped, data dropped or reduced, the elicitations
// of a URL elicitation error kept when their URL passes the URL
// elicitation rules); the guard checks what it wrote.
func guardRPCError(g *guardRun) {
	if g.env {
		e := g.doc.Get("error")
		if e == nil || e.Type() != fastjson.TypeObject {
			g.failShape("")
			return
		}
		g.base = "/error"
		g.body = e
	}
	if g.body == nil {
		g.failShape("")
		return
	}
	code, ok := g.num(g.body, "", "code", true)
	g.str(g.body, "", "message", true)
	if !ok || g.fail != nil {
		return
	}
	c, err := strconv.ParseInt(string(code.MarshalTo(nil)), 10, 64)
	if err != nil {
		g.failShape("/code")
		return
	}
	if c != CodeURLElicitationRequired {
		return
	}
	// The pass kept only the elicitations whose URL elicit.CheckURLRequest
	// accepts (rpcerror.go): count them.
	if data, ok := g.obj(g.body, "", "data", false); ok {
		if els, ok := g.arr(data, "/data", "elicitations", false); ok {
			g.rec.URLs += len(els)
		}
	}
}
