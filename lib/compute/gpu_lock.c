/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE /* O_CLOEXEC, flock */
#include "compute/gpu_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "core/hold_owner.h"
#include "core/util.h"
#include "sys/pci.h"
#include "sys/sysroot.h"

#define MAX_HELD 64
#define POLL_S 0.02

/* This process's GPUs. The lock file is the process's; inside the process one owner (a
 * context: its run, its checks' threads) holds a GPU at a time and counts its takes. */
static struct held {
    char bus_id[32];
    const void *owner; /* while refs > 0 */
    int refs;
    int taking;        /* a thread of this process is waiting for the lock file */
    int fd;            /* the locked file; -1: nothing to lock, or held by the parent */
    int kept;          /* given back by every owner, the file kept locked to the exit */
    const void *noted; /* the owner the lock file's note names */
    double since;      /* gv_now_s() when its owner took it (refs from 0) */
} held[MAX_HELD];
static int hold_to_exit;
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;

static int in_use(const struct held *e)
{
    return e->refs || e->taking || e->kept;
}

static struct held *find(const char *bus_id)
{
    for (size_t i = 0; i < MAX_HELD; i++)
        if (in_use(&held[i]) && !strcmp(held[i].bus_id, bus_id))
            return &held[i];
    return NULL;
}

static struct held *add(const char *bus_id)
{
    for (size_t i = 0; i < MAX_HELD; i++)
        if (!in_use(&held[i])) {
            snprintf(held[i].bus_id, sizeof held[i].bus_id, "%s", bus_id);
            held[i].fd = -1;
            held[i].owner = NULL;
            held[i].kept = 0;
            held[i].noted = NULL;
            return &held[i];
        }
    return NULL;
}

/* Root's runs (Slurm's prolog and health check, a provisioning agent) lock in a directory
 * only root enters: a lock file every user can open is one every user can hold, and a job's
 * process holding a GPU's lock would make every prolog after it wait and ERROR. */
#define ROOT_LOCK_DIR "/run/gpuverify"

static int root_only_dir(const char *path)
{
    struct stat st;
    if (mkdir(path, 0700) != 0 && errno != EEXIST)
        return 0;
    return lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == 0 && !(st.st_mode & 0077);
}

/* A directory this process may keep its locks in: a real directory (not a link to one),
 * created (0700) when missing, owned by this user or root, and, where others may write in it,
 * sticky (so that nobody else can replace this user's lock files); for root, root's and
 * written by root alone (root's lock files are its own: lock_file_mode). */
static int lock_dir_usable(const char *path)
{
    struct stat st;
    if (mkdir(path, 0700) != 0 && errno != EEXIST)
        return 0;
    if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode) || access(path, W_OK | X_OK) != 0)
        return 0;
    if (geteuid() == 0)
        return st.st_uid == 0 && !(st.st_mode & 0022);
    return (st.st_uid == geteuid() || st.st_uid == 0) &&
           (!(st.st_mode & 0022) || (st.st_mode & S_ISVTX));
}

/* Users' runs share their lock files (/run/lock); root's are root's alone, so that no user's
 * process can hold a GPU's lock against a prolog. */
static mode_t lock_file_mode(void)
{
    return geteuid() == 0 ? 0600 : 0666;
}

/* The lock file's directory: the caller's choice; for root its own; else the system's lock
 * directory (shared by every user of the host, 1777 on systemd systems), else /tmp. NULL: none
 * to use (the directory fails lock_dir_usable). */
static const char *lock_dir(void)
{
    const char *env = getenv("GPUVERIFY_LOCK_DIR");
    if (env && env[0])
        return lock_dir_usable(env) ? env : NULL;
    if (geteuid() == 0)
        return root_only_dir(ROOT_LOCK_DIR) ? ROOT_LOCK_DIR : NULL;
    return lock_dir_usable("/run/lock") ? "/run/lock" : lock_dir_usable("/tmp") ? "/tmp" : NULL;
}

/* Opens the GPU's lock file, creating it readable and writable by every user of the directory
 * (users' runs share /run/lock). An existing file is opened without O_CREAT: in a sticky
 * directory the kernel refuses O_CREAT on another user's file (fs.protected_regular). Read-only
 * where it cannot be written: flock needs no write access. -1 when there is no file to lock;
 * LOCK_FILE_PLANTED when something that is not a regular file (a link, a FIFO) is there. */
#define LOCK_FILE_PLANTED (-2)
static int open_lock_file(const char *name)
{
    const char *dir = lock_dir();
    if (!dir)
        return -1;
    char path[512];
    snprintf(path, sizeof path, "%s/gpuverify-%s.lock", dir, name);
    const int flags = O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK;
    for (int attempt = 0; attempt < 3; attempt++) {
        int fd = open(path, O_RDWR | flags);
        if (fd < 0 && errno == EACCES)
            fd = open(path, O_RDONLY | flags);
        if (fd < 0 && errno == ELOOP)
            return LOCK_FILE_PLANTED;
        if (fd >= 0 || errno != ENOENT) { /* a FIFO put there would block a read-only open */
            int was = fd;
            fd = gv_regular_or_close(fd);
            return was >= 0 && fd < 0 ? LOCK_FILE_PLANTED : fd;
        }
        fd = open(path, O_RDWR | O_CREAT | O_EXCL | flags, lock_file_mode());
        if (fd >= 0) {
            (void)fchmod(fd, lock_file_mode()); /* past the umask */
            return fd;
        }
        if (errno != EEXIST)
            return -1;
    }
    return -1;
}

static double wall_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void comm_of(long pid, char *out, size_t cap)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/comm", pid);
    out[0] = '\0';
    FILE *f = fopen(path, "re");
    if (!f)
        return;
    if (fgets(out, (int)cap, f))
        out[strcspn(out, "\n")] = '\0';
    fclose(f);
}

/* Who holds the lock, for the one waiting: written by the holder once it has the lock;
 * until_exit when it gives it back at its exit only; owner the context in it that holds it. */
static void write_holder(int fd, int until_exit, const void *owner)
{
    char me[16], parent[16], whose[32], text[200];
    comm_of((long)getpid(), me, sizeof me);
    comm_of((long)getppid(), parent, sizeof parent);
    gv_hold_owner_text(owner, whose, sizeof whose);
    int n = snprintf(text, sizeof text,
                     "pid=%ld\nparent=%ld\nsince_ms=%.0f\nuntil_exit=%d\nprogram=%s\nby=%s\n"
                     "owner=%s\n",
                     (long)getpid(), (long)getppid(), wall_ms(), until_exit, me, parent, whose);
    if (ftruncate(fd, 0) == 0 && n > 0)
        (void)!pwrite(fd, text, (size_t)n, 0);
}

static void read_holder(int fd, gv_gpu_holder *h)
{
    memset(h, 0, sizeof *h);
    h->held_s = -1;
    char text[256];
    ssize_t n = pread(fd, text, sizeof text - 1, 0);
    if (n <= 0)
        return;
    text[n] = '\0';
    double since = 0;
    char *save = NULL; /* strtok_r: threads of a process may read holders at once */
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (sscanf(line, "pid=%ld", &h->pid) == 1 || sscanf(line, "parent=%ld", &h->parent) == 1 ||
            sscanf(line, "since_ms=%lf", &since) == 1 ||
            sscanf(line, "until_exit=%d", &h->until_exit) == 1)
            continue;
        if (!strncmp(line, "program=", 8))
            snprintf(h->program, sizeof h->program, "%s", line + 8);
        else if (!strncmp(line, "by=", 3))
            snprintf(h->by, sizeof h->by, "%s", line + 3);
        else if (!strncmp(line, "owner=", 6))
            snprintf(h->owner, sizeof h->owner, "%s", line + 6);
    }
    if (since > 0)
        h->held_s = (wall_ms() - since) / 1e3;
}

static void nap(double seconds)
{
    struct timespec t = {0, (long)(seconds * 1e9)};
    nanosleep(&t, NULL);
}

/* Whether the process is still running: not gone, not a zombie (its exit done). */
static int running(long pid)
{
    char path[64], text[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    const char *end = strrchr(text, ')'); /* the state follows the command, which may hold ')' */
    return end && end[1] == ' ' && end[2] != 'Z' && end[2] != 'X';
}

/* A holder that gave the GPU back at its exit (gpuverify-worker) let go of the lock while its
 * exit was tearing its contexts down: waited for until its exit is done, so that the busy rule
 * does not find its context. */
#define EXIT_WAIT_S 2.0
static void wait_for_exit_of(const gv_gpu_holder *previous)
{
    if (!previous->pid || !previous->until_exit || previous->pid == (long)getpid())
        return;
    double end = gv_now_s() + EXIT_WAIT_S;
    while (running(previous->pid) && gv_now_s() < end)
        nap(POLL_S / 4);
}

/* The process the kernel says holds the flock on fd's file (/proc/locks); 0 when it cannot
 * say (no /proc, a holder in another PID namespace). */
static long kernel_holder(int fd)
{
    struct stat st;
    FILE *f = fstat(fd, &st) == 0 ? fopen("/proc/locks", "re") : NULL;
    if (!f)
        return 0;
    char line[256];
    long found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        char kind[16], mode[16];
        long pid;
        unsigned major, minor;
        unsigned long long inode;
        /* "1: FLOCK  ADVISORY  WRITE 4121 08:01:1234567 0 EOF"; blocked waiters have "->" */
        if (strstr(line, "->") || sscanf(line, "%*d: %15s %*s %15s %ld %x:%x:%llu", kind, mode,
                                         &pid, &major, &minor, &inode) != 6)
            continue;
        if (!strcmp(kind, "FLOCK") && !strcmp(mode, "WRITE") &&
            inode == (unsigned long long)st.st_ino && major == major(st.st_dev) &&
            minor == minor(st.st_dev))
            found = pid;
    }
    fclose(f);
    return found;
}

/* Seconds since process pid started; < 0 unknown. */
static double process_age_s(long pid)
{
    char path[64], text[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    const char *p = strrchr(text, ')');
    unsigned long long start = 0;
    /* field 22, starttime in clock ticks since boot: the 20th after the command's ')' */
    for (int field = 2; p && field < 22; field++)
        p = strchr(p + 1, ' ');
    double uptime = 0;
    FILE *u = fopen("/proc/uptime", "re");
    int ok = p && sscanf(p + 1, "%llu", &start) == 1 && u && fscanf(u, "%lf", &uptime) == 1;
    if (u)
        fclose(u);
    long hz = sysconf(_SC_CLK_TCK);
    return ok && hz > 0 ? uptime - (double)start / (double)hz : -1;
}

/* Whether the note in the lock file is its holder's own: the kernel's holder is the note's
 * process and runs the program the note names (where the kernel cannot say: the note's process
 * runs, runs that program and is older than its hold). Otherwise any user of a shared lock
 * directory could hold a GPU's lock with a note of its making: the holder is then reported as
 * what it is, not as another gpuverify holding the GPU for a year. A gpuverify that has just
 * taken the lock writes its note a moment later: read again once before judging. */
static int note_is_holders(int fd, const gv_gpu_holder *h)
{
    long pid = kernel_holder(fd);
    char program[16];
    if (pid > 0 && pid != h->pid)
        return 0;
    if (h->pid <= 0 || !running(h->pid))
        return 0;
    comm_of(h->pid, program, sizeof program);
    if (!program[0] || strcmp(program, h->program) != 0)
        return 0;
    double age = process_age_s(h->pid);
    return pid > 0 || (h->held_s >= 0 && (age < 0 || h->held_s <= age + 1));
}

static void vouch(int fd, gv_gpu_holder *h)
{
    if (note_is_holders(fd, h))
        return;
    nap(0.05);
    read_holder(fd, h);
    if (note_is_holders(fd, h))
        return;
    long noted = h->pid, pid = kernel_holder(fd);
    memset(h, 0, sizeof *h);
    h->held_s = -1;
    h->foreign = 1;
    h->noted_pid = noted;
    h->pid = pid > 0 ? pid : 0;
    if (h->pid)
        comm_of(h->pid, h->program, sizeof h->program);
}

/* Whether h is our parent's hold for the context that started us: we test under it. A hold of
 * another of its contexts is another test, waited for (a caller may run a test in its own
 * process and another in workers at once). */
static int parents_hold_for_us(const gv_gpu_holder *h)
{
    const char *ours = getenv(GV_HOLD_OWNER_ENV);
    return h->pid && h->pid == (long)getppid() && h->owner[0] && ours && !strcmp(h->owner, ours);
}

/* Locks the file `name` for owner within wait_s: 0 locked (*fd the file, or -1 when there is
 * nothing to lock or the parent holds it for us), 1 held by another process all along. */
static int lock_file(const char *name, const void *owner, int until_exit, double wait_s, int *fd,
                     gv_gpu_holder *holder)
{
    *fd = open_lock_file(name);
    if (*fd == LOCK_FILE_PLANTED) {
        /* Someone put a link or a FIFO where the lock goes: not a lock any gpuverify holds, and
         * not one to run without. */
        *fd = -1;
        if (holder) {
            memset(holder, 0, sizeof *holder);
            holder->held_s = -1;
            holder->foreign = LOCK_FILE_PLANTED;
        }
        return 1;
    }
    if (*fd < 0)
        return 0;
    double end = gv_now_s() + wait_s;
    for (;;) {
        if (flock(*fd, LOCK_EX | LOCK_NB) == 0) {
            gv_gpu_holder previous;
            read_holder(*fd, &previous);
            /* the waiting ones name this holder, not the one leaving */
            write_holder(*fd, until_exit, owner);
            wait_for_exit_of(&previous);
            return 0;
        }
        if (errno != EWOULDBLOCK && errno != EINTR) { /* a file system without flock */
            close(*fd);
            *fd = -1;
            return 0;
        }
        gv_gpu_holder h;
        read_holder(*fd, &h);
        if (parents_hold_for_us(&h)) {
            close(*fd);
            *fd = -1;
            return 0;
        }
        if (gv_now_s() >= end) {
            vouch(*fd, &h);
            if (holder)
                *holder = h;
            close(*fd);
            *fd = -1;
            return 1;
        }
        nap(POLL_S);
    }
}

/* A gv_now_s() time (the monotonic clock) as the condition variable's timespec. */
static void timespec_at(double s, struct timespec *out)
{
    out->tv_sec = (time_t)s;
    out->tv_nsec = (long)((s - (double)out->tv_sec) * 1e9);
}

/* Timed waits on the monotonic clock: a wall-clock step must not stretch them. */
static void cond_make(void)
{
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&changed, &a);
    pthread_condattr_destroy(&a);
}

/* The node's locks this process holds besides its GPUs': the several-GPUs lock (its descriptor
 * and how many takes it counts; its mutex is held through a take's wait, so a fork never waits
 * for it) and the host's links for copies (the descriptors handed out, under a mutex held only
 * to change the list). */
static pthread_mutex_t several_mutex = PTHREAD_MUTEX_INITIALIZER;
static int several_fd = -1, several_takes;
static pthread_mutex_t copies_mutex = PTHREAD_MUTEX_INITIALIZER;
#define MAX_COPIES 64
static int copies_fd[MAX_COPIES];
static size_t copies_count;

/* A caller that forks: the table is whole across the fork (no thread mid-change), and the
 * child holds none of its parent's locks. Its copies of the lock files are closed: a flock is
 * the open file's, so a child that kept one (a helper that never calls the library) kept the
 * GPU, the several GPUs or the host's links locked after the parent gave them back (the
 * parent's next run, and every other gpuverify's, then waited for it), and its table's owners,
 * threads of the parent it does not have, made it wait for ever. */
static void fork_prepare(void)
{
    pthread_mutex_lock(&mutex);
    pthread_mutex_lock(&copies_mutex);
}

static void fork_parent(void)
{
    pthread_mutex_unlock(&copies_mutex);
    pthread_mutex_unlock(&mutex);
}

static void fork_child(void)
{
    for (size_t i = 0; i < MAX_HELD; i++) {
        if (in_use(&held[i]) && held[i].fd >= 0)
            close(held[i].fd);
        memset(&held[i], 0, sizeof held[i]);
        held[i].fd = -1;
    }
    /* A thread of the parent may have held several_mutex (in a take's wait): the child has no
     * such thread, so the mutex is made anew. */
    pthread_mutex_init(&several_mutex, NULL);
    if (several_fd >= 0)
        close(several_fd);
    several_fd = -1, several_takes = 0;
    for (size_t i = 0; i < copies_count; i++)
        close(copies_fd[i]);
    copies_count = 0;
    cond_make(); /* the parent's waiters are not the child's */
    pthread_mutex_unlock(&copies_mutex);
    pthread_mutex_unlock(&mutex);
}

static pthread_once_t cond_once = PTHREAD_ONCE_INIT;
static void cond_init(void)
{
    pthread_cond_destroy(&changed);
    cond_make();
    pthread_atfork(fork_prepare, fork_parent, fork_child);
}

/* One name per GPU whoever spells it: CUDA's "0000:18:00.0", NVML's "00000000:18:00.0". */
static int canonical(const char *bus_id, char *out, size_t cap)
{
    gv_pci_addr a;
    if (!bus_id || gv_pci_parse_addr(bus_id, &a) != 0)
        return -1;
    gv_pci_format_addr(&a, out, cap);
    return 0;
}

/* This process as the holder, for an owner that waited for another of its contexts. */
static void this_process(gv_gpu_holder *h, const struct held *e)
{
    h->pid = (long)getpid();
    h->parent = (long)getppid();
    comm_of(h->pid, h->program, sizeof h->program);
    comm_of(h->parent, h->by, sizeof h->by);
    h->held_s = e->since > 0 ? gv_now_s() - e->since : -1;
}

int gv_gpu_lock_take(const void *owner, const char *gpu_bus_id, double wait_s,
                     gv_gpu_holder *holder)
{
    if (holder) {
        memset(holder, 0, sizeof *holder);
        holder->held_s = -1;
    }
    char bus_id[sizeof held[0].bus_id];
    if (canonical(gpu_bus_id, bus_id, sizeof bus_id) != 0)
        return 0; /* no GPU to name a file by: nothing to coordinate through */
    pthread_once(&cond_once, cond_init);
    double end = gv_now_s() + (wait_s > 0 ? wait_s : 0);
    struct timespec until;
    timespec_at(end, &until);
    pthread_mutex_lock(&mutex);
    struct held *e;
    /* Another thread of this process taking it, or another owner here holding it: wait. */
    while ((e = find(bus_id)) && (e->taking || (e->refs && e->owner != owner)))
        if (pthread_cond_timedwait(&changed, &mutex, &until) == ETIMEDOUT) {
            if (holder && e->refs)
                this_process(holder, e);
            pthread_mutex_unlock(&mutex);
            return 1;
        }
    if (e) { /* this owner's again, or kept by this process to its exit */
        if (e->noted != owner && e->fd >= 0) /* the processes it starts work under its hold */
            write_holder(e->fd, __atomic_load_n(&hold_to_exit, __ATOMIC_RELAXED), owner);
        e->noted = owner;
        e->owner = owner;
        if (e->refs++ == 0)
            e->since = gv_now_s();
        e->kept = 0;
        pthread_mutex_unlock(&mutex);
        return 0;
    }
    if (!(e = add(bus_id))) { /* no room: nothing to coordinate through */
        pthread_mutex_unlock(&mutex);
        return 0;
    }
    e->taking = 1;
    pthread_mutex_unlock(&mutex);
    int fd;
    double left = end - gv_now_s();
    char name[sizeof bus_id + 8];
    snprintf(name, sizeof name, "gpu-%s", bus_id);
    int busy = lock_file(name, owner, __atomic_load_n(&hold_to_exit, __ATOMIC_RELAXED),
                         left > 0 ? left : 0, &fd, holder);
    pthread_mutex_lock(&mutex);
    e->taking = 0;
    e->fd = fd;
    e->owner = e->noted = busy ? NULL : owner;
    e->refs = busy ? 0 : 1;
    e->since = gv_now_s();
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&mutex);
    return busy;
}

void gv_gpu_lock_give(const char *gpu_bus_id)
{
    char bus_id[sizeof held[0].bus_id];
    if (canonical(gpu_bus_id, bus_id, sizeof bus_id) != 0)
        return;
    pthread_mutex_lock(&mutex);
    struct held *e = find(bus_id);
    if (e && e->refs && --e->refs == 0) {
        e->owner = NULL;
        /* The file stays locked to the exit where the process holds its GPUs to it. */
        if (__atomic_load_n(&hold_to_exit, __ATOMIC_RELAXED))
            e->kept = e->fd >= 0;
        else if (e->fd >= 0) {
            close(e->fd); /* drops the lock */
            e->fd = -1;
        }
        pthread_cond_broadcast(&changed);
    }
    pthread_mutex_unlock(&mutex);
}

void gv_gpu_lock_hold_to_exit(void)
{
    __atomic_store_n(&hold_to_exit, 1, __ATOMIC_RELAXED);
}

void gv_gpu_holder_text(const gv_gpu_holder *h, char *out, size_t cap)
{
    if (h->foreign == LOCK_FILE_PLANTED) {
        snprintf(out, cap,
                 "nobody: its lock file is not a regular file (a link or a FIFO "
                 "someone put there)");
        return;
    }
    if (h->foreign) {
        char who[64] = "", noted[64] = "";
        if (h->pid)
            snprintf(who, sizeof who, "PID %ld%s%s", h->pid, h->program[0] ? ", " : "", h->program);
        if (h->noted_pid)
            snprintf(noted, sizeof noted, "the lock file's note names PID %ld", h->noted_pid);
        snprintf(out, cap, "a process that is not gpuverify%s%s%s%s%s",
                 who[0] || noted[0] ? " (" : "", who, who[0] && noted[0] ? "; " : "", noted,
                 who[0] || noted[0] ? ")" : "");
        return;
    }
    char who[96] = "", by[64] = "", held_for[48] = "";
    if (h->pid)
        snprintf(who, sizeof who, " (PID %ld%s%s", h->pid, h->program[0] ? ", " : "", h->program);
    if (h->pid && h->parent)
        snprintf(by, sizeof by, ", started by PID %ld%s%s", h->parent, h->by[0] ? ", " : "", h->by);
    if (h->held_s >= 0)
        snprintf(held_for, sizeof held_for, ", which has held it for %.0f s", h->held_s);
    /* Another context of this process, or of the caller that started this worker (a process it
     * starts for the holding context works under the hold): not another program to wait for. */
    if (h->pid > 0 && (h->pid == (long)getpid() || h->pid == (long)getppid()))
        snprintf(out, cap, "another context of %s (PID %ld%s%s)%s",
                 h->pid == (long)getpid() ? "this process" : "the caller", h->pid,
                 h->program[0] ? ", " : "", h->program, held_for);
    else
        snprintf(out, cap, "another gpuverify%s%s%s%s", who, by, h->pid ? ")" : "", held_for);
}

int gv_host_copies_take(double wait_s, gv_gpu_holder *holder)
{
    if (holder) {
        memset(holder, 0, sizeof *holder);
        holder->held_s = -1;
    }
    pthread_once(&cond_once, cond_init); /* the fork handlers */
    int fd;
    /* No owner: a process this one starts never copies under its hold. */
    if (lock_file("host-copies", NULL, 0, wait_s > 0 ? wait_s : 0, &fd, holder))
        return -2;
    pthread_mutex_lock(&copies_mutex);
    if (fd >= 0 && copies_count < MAX_COPIES)
        copies_fd[copies_count++] = fd;
    pthread_mutex_unlock(&copies_mutex);
    return fd;
}

void gv_host_copies_give(int fd)
{
    if (fd < 0)
        return;
    pthread_mutex_lock(&copies_mutex);
    for (size_t i = 0; i < copies_count; i++)
        if (copies_fd[i] == fd) {
            copies_fd[i] = copies_fd[--copies_count];
            break;
        }
    close(fd); /* drops the lock */
    pthread_mutex_unlock(&copies_mutex);
}

int gv_several_gpus_take(const void *owner, double wait_s, gv_gpu_holder *holder)
{
    if (holder) {
        memset(holder, 0, sizeof *holder);
        holder->held_s = -1;
    }
    pthread_once(&cond_once, cond_init); /* the fork handlers */
    pthread_mutex_lock(&several_mutex);
    int fd = -1, busy = 0;
    /* Held already (taken, or kept to the exit): another descriptor's flock would wait for this
     * process's own. */
    if (several_fd < 0)
        busy = lock_file("several-gpus", owner, __atomic_load_n(&hold_to_exit, __ATOMIC_RELAXED),
                         wait_s > 0 ? wait_s : 0, &fd, holder);
    if (!busy) {
        several_takes++;
        if (several_fd < 0)
            several_fd = fd;
    }
    pthread_mutex_unlock(&several_mutex);
    return busy;
}

void gv_several_gpus_give(void)
{
    pthread_mutex_lock(&several_mutex);
    if (several_takes > 0)
        several_takes--;
    /* A worker's GPUs stay its own to its exit (gv_gpu_lock_hold_to_exit): so does this. */
    if (several_takes == 0 && !__atomic_load_n(&hold_to_exit, __ATOMIC_RELAXED) &&
        several_fd >= 0) {
        close(several_fd);
        several_fd = -1;
    }
    pthread_mutex_unlock(&several_mutex);
}
