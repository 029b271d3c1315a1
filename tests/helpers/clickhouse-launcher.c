// Runs clickhouse-local from chDB's engine library as a server: dlopen(libchdb.so) and call
// chdb_query_cmdline(argc, argv) with the remaining arguments. Compiled at test time by
// clickhouse-server.ts; usage: launcher LIBCHDB [clickhouse-local arguments...]
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

typedef void *(*cmdline_fn)(int, char **);
typedef const char *(*error_fn)(void *);

int main(int argc, char **argv) {
  // A test runner that dies must not leave servers behind: SIGTERM when the parent goes away.
  pid_t parent = getppid();
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) return 1;
  if (argc < 2) {
    fprintf(stderr, "usage: %s LIBCHDB [clickhouse-local arguments...]\n", argv[0]);
    return 2;
  }
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "dlopen: %s\n", dlerror());
    return 2;
  }
  cmdline_fn run = (cmdline_fn)dlsym(lib, "chdb_query_cmdline");
  error_fn error = (error_fn)dlsym(lib, "chdb_result_error");
  if (!run) {
    fprintf(stderr, "dlsym chdb_query_cmdline: %s\n", dlerror());
    return 2;
  }
  argv[1] = "clickhouse-local";
  void *result = run(argc - 1, argv + 1);
  const char *message = result && error ? error(result) : NULL;
  if (message && *message) {
    fprintf(stderr, "%s\n", message);
    return 1;
  }
  return result ? 0 : 1;
}
