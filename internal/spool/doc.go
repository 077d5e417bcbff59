// Package spool holds one message of unknown length in bounded memory: up
// to a limit in a byte slice, then in a temporary file that is unlinked as
// soon as it is created (so it is gone when closed, whatever happens).
// pipeline.Spool and payload.Sink are built on it.
//
// It owns the memory/file switch, the in-place append of AppendBuffer, and
// reading back or copying out what was written. It does not own defaults
// (the caller sets Limit), error codes (errors are those of package os,
// which callers map to their own), buffer pooling (the caller may hand in
// and take back the memory with SetMemory and Memory), or what is done with
// the content.
package spool
