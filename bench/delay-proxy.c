/*
 * bench/delay-proxy: a TCP proxy that delays every chunk by a fixed time in each direction, so a database on this
 * machine answers as one on another host would (the kernel here has no netem). bench/cluster.ts compiles and runs one
 * per renderd process, between it and PostgreSQL.
 *
 *   cc -O2 -o delay-proxy bench/delay-proxy.c
 *   delay-proxy <listen port, 0 = any> <target host> <target port> <added round trip in microseconds>
 *
 * It prints "listening <port>" once it accepts connections. SIGUSR1 freezes the link (nothing is forwarded, nothing
 * is dropped: a cable pulled out, not a reset) and SIGUSR2 thaws it; what was held goes on, in order. One thread, epoll,
 * a timerfd armed for the next chunk due: delays are kept to the microsecond, not to the millisecond of a JS timer.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define MAX_PIPES 512
#define CHUNK 65536

struct chunk {
  struct chunk *next;
  uint64_t due;
  size_t len, off;
  char data[];
};

/* One direction: bytes read from `from` wait in a queue until due, then go to `to`. */
struct flow {
  int from, to;
  struct chunk *head, *tail;
};

struct pipe_pair {
  int used;
  struct flow up, down; /* up: client to server; down: server to client */
};

static struct pipe_pair pipes[MAX_PIPES];
static volatile sig_atomic_t frozen = 0;
static uint64_t one_way_ns;
static int ep, timer;

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void on_freeze(int sig) { frozen = sig == SIGUSR1; }

static void nonblocking(int fd) {
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

static void watch(int fd, uint32_t events, uint64_t tag) {
  struct epoll_event ev = {.events = events, .data.u64 = tag};
  if (epoll_ctl(ep, EPOLL_CTL_MOD, fd, &ev) < 0) epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
}

static void drop(struct pipe_pair *p) {
  struct flow *flows[2] = {&p->up, &p->down};
  for (int i = 0; i < 2; i++)
    for (struct chunk *c = flows[i]->head; c;) {
      struct chunk *n = c->next;
      free(c);
      c = n;
    }
  close(p->up.from);
  close(p->up.to);
  memset(p, 0, sizeof *p);
}

/* Arms the timer for the earliest chunk due, or disarms it. */
static void arm(void) {
  uint64_t next = 0;
  if (!frozen)
    for (int i = 0; i < MAX_PIPES; i++) {
      if (!pipes[i].used) continue;
      struct chunk *a = pipes[i].up.head, *b = pipes[i].down.head;
      if (a && (!next || a->due < next)) next = a->due;
      if (b && (!next || b->due < next)) next = b->due;
    }
  struct itimerspec its = {0};
  if (next) {
    uint64_t now = now_ns(), wait = next > now ? next - now : 1;
    its.it_value.tv_sec = wait / 1000000000ull;
    its.it_value.tv_nsec = wait % 1000000000ull;
  }
  timerfd_settime(timer, 0, &its, NULL);
}

/* Writes what is due of a flow; answers -1 when the connection broke. */
static int flush(struct flow *f, uint64_t now) {
  while (f->head && f->head->due <= now && !frozen) {
    struct chunk *c = f->head;
    ssize_t n = write(f->to, c->data + c->off, c->len - c->off);
    if (n < 0) return errno == EAGAIN ? 0 : -1;
    c->off += (size_t)n;
    if (c->off < c->len) return 0;
    f->head = c->next;
    if (!f->head) f->tail = NULL;
    free(c);
  }
  return 0;
}

/* Reads what is there into the flow's queue, due one way's delay from now; answers -1 at end or error. */
static int take(struct flow *f) {
  for (;;) {
    struct chunk *c = malloc(sizeof *c + CHUNK);
    ssize_t n = read(f->from, c->data, CHUNK);
    if (n <= 0) {
      free(c);
      return n < 0 && errno == EAGAIN ? 0 : -1;
    }
    c->next = NULL;
    c->len = (size_t)n;
    c->off = 0;
    c->due = now_ns() + one_way_ns;
    if (f->tail) f->tail->next = c;
    else f->head = c;
    f->tail = c;
  }
}

int main(int argc, char **argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: delay-proxy <listen port> <target host> <target port> <added round trip us>\n");
    return 2;
  }
  one_way_ns = (uint64_t)strtoull(argv[4], NULL, 10) * 500ull;
  signal(SIGPIPE, SIG_IGN);
  signal(SIGUSR1, on_freeze);
  signal(SIGUSR2, on_freeze);

  struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *target;
  if (getaddrinfo(argv[2], argv[3], &hints, &target) != 0) {
    fprintf(stderr, "delay-proxy: cannot resolve %s\n", argv[2]);
    return 1;
  }
  int lfd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
  setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[1])), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t alen = sizeof addr;
  if (bind(lfd, (struct sockaddr *)&addr, sizeof addr) < 0 || listen(lfd, 128) < 0) {
    perror("delay-proxy: listen");
    return 1;
  }
  getsockname(lfd, (struct sockaddr *)&addr, &alen);
  printf("listening %d\n", ntohs(addr.sin_port));
  fflush(stdout);

  ep = epoll_create1(0);
  timer = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK);
  watch(lfd, EPOLLIN, (uint64_t)-1);
  watch(timer, EPOLLIN, (uint64_t)-2);
  int was_frozen = 0;
  for (;;) {
    struct epoll_event evs[64];
    int n = epoll_wait(ep, evs, 64, 50);
    if (n < 0 && errno != EINTR) return 1;
    uint64_t now = now_ns();
    for (int i = 0; i < n; i++) {
      uint64_t tag = evs[i].data.u64;
      if (tag == (uint64_t)-1) {
        int cfd = accept(lfd, NULL, NULL);
        if (cfd < 0) continue;
        int sfd = socket(AF_INET, SOCK_STREAM, 0);
        int slot = 0;
        while (slot < MAX_PIPES && pipes[slot].used) slot++;
        if (slot == MAX_PIPES || connect(sfd, target->ai_addr, target->ai_addrlen) < 0) {
          close(cfd);
          close(sfd);
          continue;
        }
        nonblocking(cfd);
        nonblocking(sfd);
        pipes[slot] = (struct pipe_pair){.used = 1, .up = {.from = cfd, .to = sfd}, .down = {.from = sfd, .to = cfd}};
        watch(cfd, EPOLLIN, (uint64_t)slot * 2);
        watch(sfd, EPOLLIN, (uint64_t)slot * 2 + 1);
        continue;
      }
      if (tag == (uint64_t)-2) {
        uint64_t expirations;
        (void)!read(timer, &expirations, sizeof expirations);
        continue;
      }
      struct pipe_pair *p = &pipes[tag / 2];
      if (!p->used) continue;
      if (take(tag % 2 == 0 ? &p->up : &p->down) < 0) drop(p);
    }
    if (was_frozen && !frozen) now = now_ns();
    was_frozen = frozen;
    for (int i = 0; i < MAX_PIPES; i++)
      if (pipes[i].used && (flush(&pipes[i].up, now) < 0 || flush(&pipes[i].down, now) < 0)) drop(&pipes[i]);
    arm();
  }
}
