/* The real-process mode's shim: an LD_PRELOAD library that adds a per-process offset to the wall
 * clock (CLOCK_REALTIME, gettimeofday, time) of the process it is loaded into, and, when
 * REDLOCK_SIM_FSYNC_LOG names a file, appends "<inode> <size>\n" to it after every successful
 * fsync or fdatasync, so that the harness can cut each file back to what was made durable when a
 * power loss is staged (what the page cache held is lost; what was fsynced survives).
 *
 * The harness writes the offset into a small file (REDLOCK_SIM_CLOCK_FILE) that this library
 * maps read-only: bytes 0-7 are the wall offset in nanoseconds (int64, native byte order). The
 * harness changes the offset with one aligned 8-byte store, so a reader sees the old or the new
 * offset, never a torn one. CLOCK_MONOTONIC is left alone: the simulator's monotonic clocks never
 * step, and the harness stamps true time with it.
 *
 * Why not libfaketime: it hangs Debian's jemalloc-linked redis-server at start-up (jemalloc's
 * initialisation calls clock_gettime, which libfaketime serves by calling dlsym, which calls
 * malloc). This file therefore never allocates and never calls dlsym: it reads the real clocks
 * with the raw system call, and maps the offset file with open/mmap, which allocate nothing, the
 * first time a clock is read (constructors of other libraries may run before ours). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static volatile const int64_t* offset_slot = 0;
static volatile int mapping_state = 0; /* 0: not tried, 1: mapped, 2: no file */

static void map_offset_file(void) {
  if (mapping_state != 0) return;
  const char* path = getenv("REDLOCK_SIM_CLOCK_FILE");
  if (path == 0 || path[0] == 0) {
    mapping_state = 2;
    return;
  }
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    mapping_state = 2;
    return;
  }
  void* mapped = mmap(0, sizeof(int64_t), PROT_READ, MAP_SHARED, fd, 0);
  close(fd);
  if (mapped == MAP_FAILED) {
    mapping_state = 2;
    return;
  }
  offset_slot = (volatile const int64_t*)mapped;
  mapping_state = 1;
}

static int64_t wall_offset_ns(void) {
  map_offset_file();
  return mapping_state == 1 ? __atomic_load_n(offset_slot, __ATOMIC_ACQUIRE) : 0;
}

static int raw_clock_gettime(clockid_t clock, struct timespec* out) {
  return (int)syscall(SYS_clock_gettime, clock, out);
}

static int is_wall_clock(clockid_t clock) {
  return clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE;
}

static void add_ns(struct timespec* t, int64_t ns) {
  int64_t total = (int64_t)t->tv_nsec + ns % 1000000000;
  int64_t seconds = (int64_t)t->tv_sec + ns / 1000000000;
  while (total < 0) {
    total += 1000000000;
    seconds -= 1;
  }
  while (total >= 1000000000) {
    total -= 1000000000;
    seconds += 1;
  }
  t->tv_sec = (time_t)seconds;
  t->tv_nsec = (long)total;
}

__attribute__((constructor)) static void clock_shim_init(void) {
  map_offset_file();
}

/* ---- fsync log ---- */

static int fsync_log_fd = -2; /* -2: not opened yet, -1: no log */

static void append_number(char* buffer, int* length, unsigned long long value) {
  char digits[24];
  int count = 0;
  do {
    digits[count++] = (char)('0' + value % 10);
    value /= 10;
  } while (value != 0);
  while (count > 0)
    buffer[(*length)++] = digits[--count];
}

static void log_synced(int fd) {
  if (fsync_log_fd == -2) {
    const char* path = getenv("REDLOCK_SIM_FSYNC_LOG");
    fsync_log_fd = (path == 0 || path[0] == 0)
                       ? -1
                       : open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  }
  if (fsync_log_fd < 0) return;
  struct stat info;
  if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) return;
  char line[64];
  int length = 0;
  append_number(line, &length, (unsigned long long)info.st_ino);
  line[length++] = ' ';
  append_number(line, &length, (unsigned long long)info.st_size);
  line[length++] = '\n';
  /* One write: O_APPEND keeps lines from several threads whole. */
  (void)!write(fsync_log_fd, line, (size_t)length);
}

int fsync(int fd) {
  int result = (int)syscall(SYS_fsync, fd);
  if (result == 0) log_synced(fd);
  return result;
}

int fdatasync(int fd) {
  int result = (int)syscall(SYS_fdatasync, fd);
  if (result == 0) log_synced(fd);
  return result;
}

/* ---- clocks ---- */

int clock_gettime(clockid_t clock, struct timespec* out) {
  int result = raw_clock_gettime(clock, out);
  if (result == 0 && is_wall_clock(clock)) add_ns(out, wall_offset_ns());
  return result;
}

int gettimeofday(struct timeval* restrict out, void* restrict zone) {
  (void)zone;
  struct timespec now;
  int result = raw_clock_gettime(CLOCK_REALTIME, &now);
  if (result != 0) return result;
  add_ns(&now, wall_offset_ns());
  out->tv_sec = now.tv_sec;
  out->tv_usec = now.tv_nsec / 1000;
  return 0;
}

time_t time(time_t* out) {
  struct timespec now;
  raw_clock_gettime(CLOCK_REALTIME, &now);
  add_ns(&now, wall_offset_ns());
  if (out != 0) *out = now.tv_sec;
  return now.tv_sec;
}
