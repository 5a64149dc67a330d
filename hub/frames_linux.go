package hub

import (
	"errors"
	"net"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/gobwas/ws"
	"github.com/gorilla/websocket"
)

// The frames a client sends over a polled connection are read here, as
// gorilla/websocket's reader would read them: a ping is answered with a
// pong, a pong puts off the connection's pong deadline, a close is answered
// with a close and ends the connection, a text message goes to the
// connection's Format (once it is open), anything else is dropped.
// Fragmented messages are put together; a message over maxMessageSize
// ends the connection with 1009, a frame that breaks the protocol
// (unmasked, reserved bits or opcode, a long or fragmented control frame,
// a continuation out of place, a bad close code) with 1002. The frame
// headers are parsed and checked, and the payloads unmasked, by
// github.com/gobwas/ws.

// controlWait is how long the reader waits to answer a ping or a close, as
// gorilla's own handlers do.
const controlWait = time.Second

var (
	// errIdle: every frame that was there has been read, and the socket
	// holds nothing more.
	errIdle = errors.New("hub: nothing more to read")
	// errPeerClosed: the client sent a close frame, answered.
	errPeerClosed = errors.New("hub: the client closed the connection")
	// errReadLimit: the client's message was longer than maxMessageSize.
	errReadLimit = errors.New("hub: message too long")
)

// frameReader reads what a polled socket holds: as many frames as are
// there, waiting (until the pong deadline) only for the rest of a frame,
// or of a fragmented message, whose start was read. Readers are pooled:
// an idle connection holds none.
type frameReader struct {
	p    *polled
	buf  [512]byte
	r, w int // buf[r:w] is read from the socket and not yet parsed
	// begun: part of a frame (or of a fragmented message) was read, so
	// the reader waits for the rest instead of stopping where it is.
	begun bool
	ctl   [ws.MaxControlFramePayloadSize]byte
}

var frameReaders = sync.Pool{New: func() any { return new(frameReader) }}

func (fr *frameReader) reset() {
	fr.p, fr.r, fr.w, fr.begun = nil, 0, 0, false
}

// fill reads into buf once it is all parsed: without waiting at a frame's
// boundary (errIdle when there is nothing), else waiting for the rest.
func (fr *frameReader) fill() error {
	var n int
	var err error
	if fr.begun {
		n, err = fr.p.readWait(fr.buf[:])
	} else if n, err = fr.p.readNow(fr.buf[:]); n == 0 && err == nil {
		return errIdle
	}
	if err != nil {
		return err
	}
	fr.r, fr.w = 0, n
	return nil
}

// Read is io.Reader over the socket, for ws.ReadHeader and the payloads.
func (fr *frameReader) Read(b []byte) (int, error) {
	if fr.r == fr.w {
		if err := fr.fill(); err != nil {
			return 0, err
		}
	}
	n := copy(b, fr.buf[fr.r:fr.w])
	fr.r += n
	fr.begun = true
	return n, nil
}

// readFull reads len(b) bytes.
func (fr *frameReader) readFull(b []byte) error {
	for len(b) > 0 {
		n, err := fr.Read(b)
		if err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

// skip reads and drops n bytes.
func (fr *frameReader) skip(n int64) error {
	for n > 0 {
		if fr.r == fr.w {
			if err := fr.fill(); err != nil {
				return err
			}
		}
		k := min(n, int64(fr.w-fr.r))
		fr.r += int(k)
		n -= k
	}
	return nil
}

// readFrames reads the frames the socket holds: errIdle once it holds no
// more, any other error when the connection is to be dropped.
func (fr *frameReader) readFrames() error {
	c := fr.p.c
	state := ws.StateServerSide
	var (
		msg    []byte    // the text message being put together, for a Format
		msgOp  ws.OpCode // the opcode of its first frame
		msgLen int64     // its length so far
	)
	for {
		fr.begun = state.Fragmented()
		h, err := ws.ReadHeader(fr)
		switch {
		case errors.Is(err, ws.ErrHeaderLengthMSB), errors.Is(err, ws.ErrHeaderLengthUnexpected):
			return fr.protocolError(err.Error())
		case err != nil:
			return err
		}
		if err := ws.CheckHeader(h, state); err != nil {
			return fr.protocolError(err.Error())
		}
		if h.OpCode.IsControl() {
			payload := fr.ctl[:h.Length]
			if err := fr.readFull(payload); err != nil {
				return err
			}
			ws.Cipher(payload, h.Mask, 0)
			if err := fr.control(h.OpCode, payload); err != nil {
				return err
			}
			continue
		}
		if msgLen += h.Length; msgLen > maxMessageSize {
			fr.p.ws.WriteControl(websocket.CloseMessage,
				websocket.FormatCloseMessage(websocket.CloseMessageTooBig, ""), time.Now().Add(controlWait))
			return errReadLimit
		}
		if h.OpCode != ws.OpContinuation {
			msgOp = h.OpCode
		}
		if c.format != nil && msgOp == ws.OpText {
			n := len(msg)
			msg = append(msg, make([]byte, h.Length)...)
			if err := fr.readFull(msg[n:]); err != nil {
				return err
			}
			ws.Cipher(msg[n:], h.Mask, 0)
		} else if err := fr.skip(h.Length); err != nil {
			return err
		}
		if !h.Fin {
			state = state.Set(ws.StateFragmented)
			continue
		}
		state = state.Clear(ws.StateFragmented)
		if c.format != nil && msgOp == ws.OpText {
			c.opening.Wait() // what Receive changes needs the user joined
			if !c.closing() {
				c.format.Receive(c, msg)
			}
		}
		msg, msgLen = nil, 0
	}
}

// control handles a control frame's payload, unmasked.
func (fr *frameReader) control(op ws.OpCode, payload []byte) error {
	p := fr.p
	switch op {
	case ws.OpPong:
		p.pongBy.Store(int64(monotonicNow() + p.c.h.opt.PongWait))
	case ws.OpPing:
		err := p.ws.WriteControl(websocket.PongMessage, payload, time.Now().Add(controlWait))
		var ne net.Error
		if err != nil && err != websocket.ErrCloseSent && !(errors.As(err, &ne) && ne.Timeout()) {
			return err
		}
	case ws.OpClose:
		code := websocket.CloseNoStatusReceived
		if len(payload) >= 2 {
			sc, reason := ws.ParseCloseFrameData(payload)
			if !validCloseCode(int(sc)) {
				return fr.protocolError("bad close code")
			}
			if !utf8.ValidString(reason) {
				return fr.protocolError("invalid utf8 payload in close frame")
			}
			code = int(sc)
		}
		p.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, ""), time.Now().Add(controlWait))
		return errPeerClosed
	}
	return nil
}

// protocolError closes the connection with 1002 and why.
func (fr *frameReader) protocolError(why string) error {
	data := websocket.FormatCloseMessage(websocket.CloseProtocolError, why)
	if len(data) > ws.MaxControlFramePayloadSize {
		data = data[:ws.MaxControlFramePayloadSize]
	}
	fr.p.ws.WriteControl(websocket.CloseMessage, data, time.Now().Add(controlWait))
	return errors.New("hub: websocket protocol error: " + why)
}

// validCloseCode reports whether a client may close with code, by the
// rules gorilla/websocket reads close frames with.
func validCloseCode(code int) bool {
	switch code {
	case 1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014:
		return true
	}
	return code >= 3000 && code <= 4999
}
