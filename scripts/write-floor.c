// The kernel's floor of fan-out on this machine (docs/design.md, issue 28): one process writes
// the same frame to N loopback TCP sockets (one send() each), a child drains them all with
// epoll (the cheapest possible subscriber). Prints the sender's CPU time per write.
// Build and run: cc -O2 -o /tmp/write-floor scripts/write-floor.c && /tmp/write-floor 500 100 700
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <time.h>
static double cpu(void) { struct rusage r; getrusage(RUSAGE_SELF, &r);
  return r.ru_utime.tv_sec + r.ru_utime.tv_usec / 1e6 + r.ru_stime.tv_sec + r.ru_stime.tv_usec / 1e6; }
static double sys_(void) { struct rusage r; getrusage(RUSAGE_SELF, &r);
  return r.ru_stime.tv_sec + r.ru_stime.tv_usec / 1e6; }
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 500, rounds = argc > 2 ? atoi(argv[2]) : 200;
  int size = argc > 3 ? atoi(argv[3]) : 700;
  int ls = socket(AF_INET, SOCK_STREAM, 0); struct sockaddr_in a = {0};
  a.sin_family = AF_INET; a.sin_addr.s_addr = htonl(INADDR_LOOPBACK); a.sin_port = 0;
  bind(ls, (struct sockaddr *)&a, sizeof a); listen(ls, 4096);
  socklen_t al = sizeof a; getsockname(ls, (struct sockaddr *)&a, &al);
  pid_t pid = fork();
  if (pid == 0) {  // the subscriber: n connections, drain everything
    int ep = epoll_create1(0); char buf[65536]; long total = 0, want = (long)n * rounds * size;
    for (int i = 0; i < n; i++) { int c = socket(AF_INET, SOCK_STREAM, 0);
      if (connect(c, (struct sockaddr *)&a, sizeof a)) { perror("connect"); exit(1); }
      struct epoll_event ev = {.events = EPOLLIN, .data.fd = c}; epoll_ctl(ep, EPOLL_CTL_ADD, c, &ev); }
    struct epoll_event evs[1024];
    while (total < want) { int k = epoll_wait(ep, evs, 1024, 5000); if (k <= 0) break;
      for (int i = 0; i < k; i++) { ssize_t r = read(evs[i].data.fd, buf, sizeof buf); if (r > 0) total += r; } }
    exit(total == want ? 0 : 3);
  }
  int *s = malloc(n * sizeof(int));
  for (int i = 0; i < n; i++) { s[i] = accept(ls, NULL, NULL); int one = 1;
    setsockopt(s[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one); }
  char *frame = malloc(size); memset(frame, 'x', size);
  struct timespec gap = {0, 20 * 1000 * 1000};
  double c0 = cpu(), s0 = sys_();
  for (int r = 0; r < rounds; r++) { for (int i = 0; i < n; i++) send(s[i], frame, size, 0); nanosleep(&gap, NULL); }
  double c1 = cpu(), s1 = sys_();
  int st; waitpid(pid, &st, 0);
  printf("C sender: %d sockets x %d rounds of %d B: %.2f us CPU per write (%.0f%% system); receiver exit %d\n",
         n, rounds, size, (c1 - c0) / ((double)n * rounds) * 1e6, 100 * (s1 - s0) / (c1 - c0), WEXITSTATUS(st));
  return 0;
}
