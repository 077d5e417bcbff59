package wire

import "testing"

// TestServerKinds: every server-to-client method of the two revisions has
// its kind; every kind of the table is one of Kinds; requests and
// notifications are request kinds, results are not; an error response is
// rpc-error whatever its request.
func TestServerKinds(t *testing.T) {
	for _, tc := range []struct {
		method string
		want   Kind
	}{
		{MethodInitialize, KindInitializeResult},
		{MethodServerDiscover, KindInitializeResult},
		{MethodToolsList, KindToolsList},
		{MethodPromptsList, KindPromptsList},
		{MethodResourcesList, KindResourcesList},
		{MethodResourcesTemplates, KindResourceTemplatesList},
		{MethodTasksGet, KindTaskResult},
		{MethodTasksList, KindTaskResult},
		{MethodTasksCancel, KindTaskResult},
		{MethodTasksResult, KindToolResult},
		{MethodSamplingCreateMessage, KindSamplingRequest},
		{MethodRootsList, KindRootsRequest},
		{MethodNotifyMessage, KindNotification},
		{MethodNotifyProgress, KindNotification},
		{MethodNotifyCancelled, KindNotification},
		{MethodNotifyResourceUpdated, KindNotification},
		{MethodNotifyResourcesListChanged, KindNotification},
		{MethodNotifyToolsListChanged, KindNotification},
		{MethodNotifyPromptsListChanged, KindNotification},
		{MethodNotifyTasksStatus, KindNotification},
		{MethodNotifyElicitationComplete, KindNotification},
		{MethodNotifySubscriptionsAcked, KindNotification},
	} {
		if got := KindForMethod(tc.method); got != tc.want {
			t.Errorf("KindForMethod(%q) = %q, want %q", tc.method, got, tc.want)
		}
	}
	kinds := map[Kind]bool{}
	for _, k := range Kinds() {
		kinds[k] = true
	}
	for _, m := range KnownMethods() {
		if k := KindForMethod(m); !kinds[k] {
			t.Errorf("%s: kind %q is not in Kinds()", m, k)
		}
	}
	for _, k := range serverKinds() {
		if !kinds[k] {
			t.Errorf("server kind %q is not in Kinds()", k)
		}
	}
	for k, want := range map[Kind]bool{KindSamplingRequest: true, KindRootsRequest: true, KindNotification: true,
		KindElicitationRequest: true, KindToolsList: false, KindRPCError: false, KindToolResult: false} {
		if IsRequestKind(k) != want {
			t.Errorf("IsRequestKind(%s) = %v", k, !want)
		}
	}
	if KindForResponse(MethodToolsList, true) != KindRPCError || KindForResponse(MethodToolsList, false) != KindToolsList {
		t.Error("KindForResponse")
	}
}
