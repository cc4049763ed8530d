// Package evloop runs many connections' blocking code on one goroutine:
// an event loop over non-blocking sockets and one epoll instance. Each
// connection's code is a Task, a runtime coroutine (iter.Pull) that the
// loop resumes directly when its socket is ready, so the code reads like a
// goroutine's (Read, Write, Sleep) but costs one read per arrival and no
// scheduler round trip. Linux only.
package evloop
