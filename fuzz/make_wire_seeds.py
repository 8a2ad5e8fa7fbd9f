#!/usr/bin/env python3
"""Writes the seed corpora of the `wire` and `wire_client` fuzz targets.

`wire` (fuzz/wire.cpp): byte streams a client sends to
`scgpu serve` (docs/host-protocol.md), with the replies to the device's DMA requests placed where
the server reads them. Each seed is a session that a correct client could have sent, so that the
fuzzer starts from inputs that reach the host interface's commands (rings in host memory, copies,
semaphores, a module load and a launch, interrupts) and mutates from there.

`wire_client` (fuzz/wire_client.cpp): what a server sends after HELLO_REPLY to the client, whose
requests are HELLO (id 1) and then 32 MMIO accesses, reads (even) and writes (odd) in turn, ids 2..33.

Run once from anywhere: python3 fuzz/make_wire_seeds.py
"""
import pathlib
import re
import struct

root = pathlib.Path(__file__).resolve().parent.parent
out = root / "fuzz" / "corpus" / "wire"
out_client = root / "fuzz" / "corpus" / "wire_client"

regs_h = (root / "tlm" / "host" / "scgpu_regs.h").read_text()
REG = {m[0]: int(m[1], 16) for m in re.findall(r"#define SCGPU_REG_([A-Z0-9_]+) (0x[0-9A-Fa-f]+)u\n", regs_h)}
METHOD = {m[0]: int(m[1], 16) for m in re.findall(r"#define SCGPU_METHOD_([A-Z_]+) (0x[0-9A-Fa-f]+)u\n", regs_h)}
CH_BASE, CH_STRIDE = 0x1000, 0x40
CH = {"GPFIFO_BASE_LO": 0x00, "GPFIFO_BASE_HI": 0x04, "GPFIFO_ENTRIES": 0x08, "GP_PUT": 0x0C, "GP_GET": 0x10,
      "CONTROL": 0x14, "STATUS": 0x18, "ERROR": 0x1C, "RESET": 0x20, "INTR_PAYLOAD": 0x24}
ENABLE, RING_IN_HOST = 1, 2

MAGIC = 0x55504753
HELLO, GOODBYE, ERROR, MMIO_READ, MMIO_WRITE, DMA_READ_REPLY, DMA_WRITE_ACK = 1, 3, 4, 5, 7, 10, 12
HOST = 0x1000_0000          # where this client's host memory starts (an IOVA)
VA = 0x7000_0000_0000       # device addresses the seeds map


def ch(c, name):
    return CH_BASE + c * CH_STRIDE + CH[name]


def cmd(method, *args):
    return [METHOD[method] | len(args) << 16, *args]


def lo(v):
    return v & 0xFFFFFFFF


def hi(v):
    return v >> 32


class Client:
    """Builds a client's byte stream; `host` is its memory, which DMA replies are served from."""

    def __init__(self):
        self.b = bytearray()
        self.id = 1
        self.dma_id = 1
        self.host = bytearray(0x100000)
        self.put = {}

    def msg(self, type_, payload, id_=None):
        if id_ is None:
            id_, self.id = self.id, self.id + 1
        self.b += struct.pack("<HHIIIQ", type_, 0, len(payload), id_, 0, 0) + payload

    def hello(self):
        self.msg(HELLO, struct.pack("<IHH", MAGIC, 1, 0))

    def goodbye(self):
        self.msg(GOODBYE, struct.pack("<I", 0))

    def read(self, off):
        self.msg(MMIO_READ, struct.pack("<II", off, 4))

    def write(self, off, value):
        self.msg(MMIO_WRITE, struct.pack("<IIQ", off, 4, value))

    # The device's DMA, answered in the order the server asks.
    def dma_read(self, addr, n, refuse=False):
        i, self.dma_id = self.dma_id, self.dma_id + 1
        off = addr - HOST
        if refuse or off < 0 or off + n > len(self.host):
            self.msg(DMA_READ_REPLY, struct.pack("<I", 1), i)
        else:
            self.msg(DMA_READ_REPLY, struct.pack("<I", 0) + bytes(self.host[off:off + n]), i)

    def dma_write(self, addr, data):
        i, self.dma_id = self.dma_id, self.dma_id + 1
        off = addr - HOST
        ok = 0 <= off and off + len(data) <= len(self.host)
        if ok:
            self.host[off:off + len(data)] = data
        self.msg(DMA_WRITE_ACK, struct.pack("<I", 0 if ok else 1), i)

    def open_channel(self, c, entries=16):
        ring = HOST + c * 0x1000
        self.write(ch(c, "GPFIFO_BASE_LO"), lo(ring))
        self.write(ch(c, "GPFIFO_BASE_HI"), hi(ring))
        self.write(ch(c, "GPFIFO_ENTRIES"), entries)
        self.write(ch(c, "CONTROL"), ENABLE | RING_IN_HOST)
        self.put[c] = 0

    def submit(self, c, words, buf_off, dmas):
        """Puts `words` at host offset buf_off, an entry for it on channel c's ring, rings the doorbell
        and answers the DMA the server will make: the entry, the buffer, then `dmas` (a list of
        ("r", addr, n) or ("w", addr, bytes) in the order the commands make them)."""
        data = struct.pack("<%dI" % len(words), *words)
        self.host[buf_off:buf_off + len(data)] = data
        entry_addr = HOST + c * 0x1000 + self.put[c] * 16
        entry = struct.pack("<QII", HOST + buf_off, len(words), 1)
        self.host[entry_addr - HOST:entry_addr - HOST + 16] = entry
        self.put[c] += 1
        self.write(ch(c, "GP_PUT"), self.put[c])
        self.dma_read(entry_addr, 16)
        self.dma_read(HOST + buf_off, len(data))
        for d in dmas:
            if d[0] == "r":
                self.dma_read(d[1], d[2])
            else:
                self.dma_write(d[1], d[2])


def seeds():
    s = {}

    c = Client()
    c.hello()
    c.read(REG["BOOT_ID"])
    c.goodbye()
    s["hello_read_goodbye"] = c.b

    c = Client()
    c.hello()
    for off, v in [(REG["SCRATCH"], 0xA5A5A5A5), (REG["INTR_ENABLE"], 7), (REG["INTR_MASK"], 1), (0x800, 1)]:
        c.write(off, v)
    for off in [REG["SCRATCH"], REG["STATUS"], REG["TIMER_LO"], REG["TIMER_HI"], REG["ERR_KIND"], 0x2, 0x10000]:
        c.read(off)
    c.write(REG["ERR_CLEAR"], 1)
    c.write(REG["RESET"], 1)
    c.goodbye()
    s["registers"] = c.b

    # A semaphore release with timestamp into host memory, and an interrupt.
    c = Client()
    c.hello()
    c.write(REG["INTR_ENABLE"], 7)
    c.open_channel(1)
    sem = HOST + 0x80000
    words = cmd("SEM_RELEASE", lo(sem), hi(sem), 1, 3) + cmd("INTERRUPT", 0xCAFE)
    c.submit(1, words, 0x40000, [("w", sem, bytes(16))])
    c.read(REG["INTR_STATUS"])
    c.read(ch(1, "INTR_PAYLOAD"))
    c.write(REG["INTR_STATUS"], 7)
    c.goodbye()
    s["release_interrupt"] = c.b

    # A host semaphore the channel waits on: polled (a DMA read) at every access until it is 1.
    c = Client()
    c.hello()
    c.open_channel(2)
    sem = HOST + 0x80000
    done = HOST + 0x80010
    words = cmd("SEM_ACQUIRE", lo(sem), hi(sem), 1, 2) + cmd("SEM_RELEASE", lo(done), hi(done), 5, 2)
    # At the doorbell the front end tries the acquire twice (once more after the fetch's progress).
    c.submit(2, words, 0x40000, [("r", sem, 4), ("r", sem, 4)])
    c.read(ch(2, "STATUS"))
    c.dma_read(sem, 4)
    c.host[0x80000:0x80004] = struct.pack("<I", 1)
    c.read(REG["STATUS"])
    c.dma_read(sem, 4)
    c.dma_write(done, struct.pack("<I", 5))
    c.goodbye()
    s["acquire_polls_host"] = c.b

    # Copies host -> device -> host, a 2D copy and a memset.
    c = Client()
    c.hello()
    c.open_channel(1)
    src, back = HOST + 0x60000, HOST + 0x70000
    c.host[0x60000:0x60040] = bytes(range(64))
    words = (cmd("MAP", lo(VA), hi(VA), 0x10000, 0) + cmd("COPY", lo(src), hi(src), lo(VA), hi(VA), 64, 1, 0, 0, 1) +
             cmd("MEMSET", lo(VA + 0x1000), hi(VA + 0x1000), 64, 1, 0, 0xDEADBEEF, 4) +
             cmd("COPY", lo(VA), hi(VA), lo(back), hi(back), 16, 4, 16, 32, 2))
    dmas = [("r", src, 64)] + [("w", back + 32 * row, bytes(range(16 * row, 16 * row + 16))) for row in range(4)]
    c.submit(1, words, 0x40000, dmas)
    c.read(ch(1, "ERROR"))
    c.goodbye()
    s["copies_memset"] = c.b

    # A module load and a launch, then the result copied back and a release.
    ptx = (b".version 8.0\n.target sm_90\n.address_size 64\n"
           b".visible .entry add_one(.param .u64 p, .param .u64 n) {\n"
           b"  .reg .u64 %a<6>; .reg .u32 %r<4>; .reg .pred %p;\n"
           b"  ld.param.u64 %a0, [p]; ld.param.u64 %a1, [n];\n"
           b"  mov.u32 %r0, %tid.x; cvt.u64.u32 %a2, %r0; setp.ge.u64 %p, %a2, %a1; @%p bra done;\n"
           b"  shl.b64 %a3, %a2, 2; add.u64 %a3, %a0, %a3; ld.global.u32 %r3, [%a3]; add.u32 %r3, %r3, 1;\n"
           b"  st.global.u32 [%a3], %r3;\ndone:\n  ret;\n}\n")
    c = Client()
    c.hello()
    c.write(REG["INTR_ENABLE"], 7)
    c.open_channel(1)
    image, desc, data = VA, VA + 0x10000, VA + 0x20000
    c.host[0x60000:0x60000 + len(ptx)] = ptx
    d = bytearray(0x240)
    struct.pack_into("<IIQIIIIIIIIQQ", d, 0, 0, 7, desc + 64, 1, 1, 1, 32, 1, 1, 0, 16, desc + 512, 0)
    d[64:71] = b"add_one"
    struct.pack_into("<QQ", d, 512, data, 32)
    c.host[0x61000:0x61000 + len(d)] = d
    src_ptx, src_desc, back, sem = HOST + 0x60000, HOST + 0x61000, HOST + 0x70000, HOST + 0x80000
    words = (cmd("MAP", lo(VA), hi(VA), 0x30000, 0) +
             cmd("COPY", lo(src_ptx), hi(src_ptx), lo(image), hi(image), len(ptx), 1, 0, 0, 1) +
             cmd("LOAD_MODULE", lo(image), hi(image), len(ptx), 0, 0, 0) +
             cmd("COPY", lo(src_desc), hi(src_desc), lo(desc), hi(desc), len(d), 1, 0, 0, 1) +
             cmd("MEMSET", lo(data), hi(data), 128, 1, 0, 41, 4) +
             cmd("LAUNCH", lo(desc), hi(desc)) +
             cmd("COPY", lo(data), hi(data), lo(back), hi(back), 128, 1, 0, 0, 2) +
             cmd("SEM_RELEASE", lo(sem), hi(sem), 1, 3))
    dmas = [("r", src_ptx, len(ptx)), ("r", src_desc, len(d)), ("w", back, struct.pack("<32I", *[42] * 32)),
            ("w", sem, bytes(16))]
    c.submit(1, words, 0x40000, dmas)
    c.read(ch(1, "ERROR"))
    c.read(REG["ERR_KIND"])
    c.goodbye()
    s["load_launch"] = c.b

    # The client refuses the ring entry: the channel stops with an error; recovery by channel reset.
    c = Client()
    c.hello()
    c.write(REG["INTR_ENABLE"], 7)
    c.open_channel(3)
    c.put[3] = 1
    c.write(ch(3, "GP_PUT"), 1)
    c.dma_read(HOST + 0x3000, 16, refuse=True)
    for off in [ch(3, "ERROR"), REG["ERR_KIND"], REG["ERR_CHANNEL"], REG["INTR_STATUS"]]:
        c.read(off)
    c.write(ch(3, "RESET"), 1)
    c.write(REG["ERR_CLEAR"], 1)
    c.read(ch(3, "STATUS"))
    c.goodbye()
    s["refused_dma_recovery"] = c.b

    # The client ends with an ERROR of its own; and one that vanishes mid-header.
    c = Client()
    c.hello()
    c.msg(ERROR, struct.pack("<I", 2) + b"client-side protocol error")
    s["client_error"] = c.b
    c = Client()
    c.hello()
    c.read(REG["SCRATCH"])
    s["truncated"] = c.b[:-5]
    return s


def server_msg(type_, id_, payload):
    return struct.pack("<HHIIIQ", type_, 0, len(payload), id_, 0, 1000 * id_) + payload


def client_seeds():
    MMIO_READ_REPLY, MMIO_WRITE_ACK, DMA_READ, DMA_WRITE, INTERRUPT = 6, 8, 9, 11, 13

    def reply(i):  # the reply to access i (0..31)
        return server_msg(MMIO_WRITE_ACK, i + 2, b"") if i % 2 else server_msg(MMIO_READ_REPLY, i + 2, struct.pack("<Q", i))

    s = {"replies": b"".join(reply(i) for i in range(32))}
    b = bytearray()
    for i in range(32):
        if i % 4 == 0:
            b += server_msg(DMA_READ, i + 1, struct.pack("<QII", HOST + 16 * i, 16, 0))
            b += server_msg(DMA_WRITE, i + 2, struct.pack("<QII", HOST + 0x100 + 8 * i, 8, 0) + bytes(range(8)))
            b += server_msg(DMA_READ, i + 3, struct.pack("<QII", 0x40, 4, 0))  # refused: not the client's memory
            b += server_msg(INTERRUPT, 0, struct.pack("<II", 0, (i // 4) % 2))
        b += reply(i)
    s["dma_interrupts"] = bytes(b)
    s["error_after_two"] = reply(0) + reply(1) + server_msg(ERROR, 0, struct.pack("<I", 5) + b"the server is stopping")
    s["goodbye_after_one"] = reply(0) + server_msg(GOODBYE, 0, struct.pack("<I", 0))
    s["large_dma_read"] = server_msg(DMA_READ, 1, struct.pack("<QII", HOST, 1 << 20, 0)) + reply(0)
    return s


if __name__ == "__main__":
    for directory, corpus in ((out, seeds()), (out_client, client_seeds())):
        directory.mkdir(parents=True, exist_ok=True)
        for name, data in corpus.items():
            (directory / name).write_bytes(bytes(data))
            print("%s: %d bytes" % (directory / name, len(data)))
