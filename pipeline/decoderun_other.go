//go:build !amd64

package pipeline

const haveDecodeRun = false

func countRunes(s []byte) int64 { return countRunesGo(s) }

func escapedLenFast(s []byte) int { return escapedLenWords(s) }

func decodeRunSh(src *byte, n int, dst *byte, room int, sh *byte, shRoom int, t *runTables) (int, int, int, bool) {
	return decodeRunShGo(src, n, dst, room, sh, shRoom, t)
}

func escapeRun(src *byte, n int, dst *byte, room int) (int, int) {
	return escapeRunGo(src, n, dst, room)
}
