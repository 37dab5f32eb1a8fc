/* SPDX-License-Identifier: Apache-2.0 */
/* One gpuverify at a time on a GPU (compute/gpu_lock.h) and gv_run's hold on its GPUs
 * (run/run_hold.h): processes exclude each other, threads of one share, a child works under
 * its parent's hold, a killed holder leaves nothing behind, and a run waits for another's GPUs
 * or says who kept them; the worker of the tests across GPUs makes ready only the GPUs it can
 * take. The other gpuverify is a forked child holding the lock. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "compute/gpu_lock.h"
#include "core/context.h"
#include "core/hold_owner.h"
#include "core/util.h"
#include "gpuverify/gv_nccl.h"
#include "helpers.h"
#include "run/run.h"

#define GPU "0000:18:00.0" /* GPU 0 of the fake scenarios */
static const char owner[] = "this test", other_owner[] = "another context";

/* A child that takes `bus_id` (HOST_LINKS: the host's links for copies), says so on the pipe,
 * and holds it for hold_s (then exits). */
#define HOST_LINKS NULL
/* holder_child's bus_id for the several-GPUs lock in place of a GPU's. */
#define SEVERAL "several"

static pid_t holder_child(const char *bus_id, double hold_s)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        int several = bus_id && !strcmp(bus_id, SEVERAL);
        int links = bus_id ? -1 : gv_host_copies_take(5, NULL);
        int got = several      ? gv_several_gpus_take(owner, 5, NULL)
                  : bus_id     ? gv_gpu_lock_take(owner, bus_id, 5, NULL)
                  : links >= 0 ? 0
                               : 1;
        char c = got == 0 ? 'y' : 'n';
        if (write(fds[1], &c, 1) != 1)
            _exit(3);
        struct timespec t = {(time_t)hold_s, (long)((hold_s - (double)(time_t)hold_s) * 1e9)};
        nanosleep(&t, NULL);
        if (several)
            gv_several_gpus_give();
        else if (bus_id)
            gv_gpu_lock_give(bus_id);
        gv_host_copies_give(links);
        _exit(0);
    }
    close(fds[1]);
    char c = 0;
    assert_int_equal(read(fds[0], &c, 1), 1);
    close(fds[0]);
    assert_int_equal(c, 'y');
    return pid;
}

static void reap(pid_t pid)
{
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

/* Every test's lock directories, under one removed when the tests end. */
static char lock_dirs[128];

static void lock_dir(const char *name)
{
    char dir[256];
    snprintf(dir, sizeof dir, "%s/%s", lock_dirs, name);
    mkdir(dir, 0700);
    setenv("GPUVERIFY_LOCK_DIR", dir, 1);
}

/* This test program again, as a child started by exec (none of this process's table) for
 * `whose` context of this process, as gv_worker_spawn starts it (NULL: none):
 * `--take BUS` exits with gv_gpu_lock_take(owner, BUS, 0.3 s). */
static char *self;

static int exec_taker(const char *bus_id, const void *whose)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char text[32];
        gv_hold_owner_text(whose, text, sizeof text);
        if (whose)
            setenv(GV_HOLD_OWNER_ENV, text, 1);
        else
            unsetenv(GV_HOLD_OWNER_ENV);
        execl(self, self, "--take", bus_id, (char *)NULL);
        _exit(9);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

struct thread_take {
    const void *owner;
    double wait_s;
    int got;
    gv_gpu_holder holder;
};

static void *take_in_thread(void *arg)
{
    struct thread_take *t = arg;
    t->got = gv_gpu_lock_take(t->owner, GPU, t->wait_s, &t->holder);
    return NULL;
}

static int take_from_thread(const void *who, double wait_s, gv_gpu_holder *holder)
{
    struct thread_take t = {.owner = who, .wait_s = wait_s, .got = -1};
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, take_in_thread, &t), 0);
    pthread_join(thread, NULL);
    if (holder)
        *holder = t.holder;
    return t.got;
}

/* One owner (a context: its run, its checks' threads) counts its takes; another context of
 * the same process waits as another process would: two runs in one process measure apart. */
static void a_context_counts_its_takes_and_another_waits(void **state)
{
    (void)state;
    lock_dir("share");
    assert_int_equal(gv_gpu_lock_take(owner, GPU, 0, NULL), 0);
    assert_int_equal(take_from_thread(owner, 0, NULL), 0); /* counted, not refused */
    gv_gpu_holder h;
    double t0 = gv_now_s();
    assert_int_equal(take_from_thread(other_owner, 0.2, &h), 1);
    assert_true(gv_now_s() - t0 >= 0.2);
    assert_int_equal(h.pid, getpid());
    gv_gpu_lock_give(GPU);
    assert_int_equal(take_from_thread(other_owner, 0, NULL), 1); /* still held once */
    gv_gpu_lock_give(GPU);
    assert_int_equal(take_from_thread(other_owner, 0, NULL), 0);
    gv_gpu_lock_give(GPU);
    gv_gpu_lock_give(GPU); /* one give too many changes nothing */
    /* Given back: another process takes it, and then it is refused to a third. */
    pid_t pid = holder_child(GPU, 60);
    assert_int_equal(exec_taker(GPU, owner), 1);
    reap(pid);
}

static void another_process_is_waited_for(void **state)
{
    (void)state;
    lock_dir("wait");
    pid_t pid = holder_child(GPU, 0.5);
    double t0 = gv_now_s();
    assert_int_equal(gv_gpu_lock_take(owner, GPU, 10, NULL), 0);
    double waited = gv_now_s() - t0;
    assert_true(waited > 0.3);
    assert_true(waited < 5);
    gv_gpu_lock_give(GPU);
    waitpid(pid, NULL, 0);
}

static void a_holder_is_named_and_its_death_frees_the_gpu(void **state)
{
    (void)state;
    lock_dir("named");
    pid_t pid = holder_child(GPU, 60);
    gv_gpu_holder h;
    double t0 = gv_now_s();
    /* NVML's spelling of the same GPU names the same lock. */
    assert_int_equal(gv_gpu_lock_take(owner, "00000000:18:00.0", 0.2, &h), 1);
    assert_true(gv_now_s() - t0 >= 0.2);
    assert_int_equal(h.pid, pid);
    assert_int_equal(h.parent, getpid());
    assert_true(h.held_s >= 0 && h.held_s < 30);
    char text[256], want[64];
    gv_gpu_holder_text(&h, text, sizeof text);
    snprintf(want, sizeof want, "another gpuverify (PID %ld", (long)pid);
    assert_non_null(strstr(text, want));
    assert_non_null(strstr(text, "which has held it for"));
    /* Another GPU is not this one. */
    assert_int_equal(gv_gpu_lock_take(owner, "0000:2a:00.0", 0, NULL), 0);
    gv_gpu_lock_give("0000:2a:00.0");
    reap(pid); /* SIGKILL: no give, the kernel drops the lock */
    assert_int_equal(gv_gpu_lock_take(owner, GPU, 2, NULL), 0);
    gv_gpu_lock_give(GPU);
}

/* gpuverify-worker gives its GPUs back by exiting, its contexts torn down with it: the next
 * holder starts once that exit is done. */
static void a_worker_gives_its_gpus_back_by_exiting(void **state)
{
    (void)state;
    lock_dir("exit");
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        gv_gpu_lock_hold_to_exit();
        int got = gv_gpu_lock_take(owner, GPU, 5, NULL);
        gv_gpu_lock_give(GPU); /* kept all the same */
        char c = got == 0 ? 'y' : 'n';
        if (write(fds[1], &c, 1) != 1)
            _exit(3);
        struct timespec t = {0, 400 * 1000 * 1000};
        nanosleep(&t, NULL);
        _exit(0);
    }
    close(fds[1]);
    char c = 0;
    assert_int_equal(read(fds[0], &c, 1), 1);
    close(fds[0]);
    assert_int_equal(c, 'y');
    double t0 = gv_now_s();
    assert_int_equal(gv_gpu_lock_take(owner, GPU, 5, NULL), 0);
    assert_true(gv_now_s() - t0 > 0.3);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, WNOHANG), pid); /* its exit was done */
    gv_gpu_lock_give(GPU);
}

/* gv_run's worker holds the GPUs and starts NCCL's worker, which opens sessions on them; a
 * worker started for another context of the same process (a run in workers beside one in the
 * process) waits for the hold as another process would. */
static void a_child_works_under_its_parents_hold(void **state)
{
    (void)state;
    lock_dir("child");
    assert_int_equal(gv_gpu_lock_take(owner, GPU, 0, NULL), 0);
    assert_int_equal(exec_taker(GPU, owner), 0);
    assert_int_equal(exec_taker(GPU, other_owner), 1);
    assert_int_equal(exec_taker(GPU, NULL), 1);
    gv_gpu_lock_give(GPU);
    /* Kept to the exit (a worker), then taken by another context: its children work under it
     * now, the first's no longer. */
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        gv_gpu_lock_hold_to_exit();
        int ok = gv_gpu_lock_take(owner, GPU, 0, NULL) == 0;
        gv_gpu_lock_give(GPU);
        ok = ok && gv_gpu_lock_take(other_owner, GPU, 0, NULL) == 0;
        ok = ok && exec_taker(GPU, other_owner) == 0 && exec_taker(GPU, owner) == 1;
        _exit(ok ? 0 : 1);
    }
    int status = -1;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* Held by another process, not the child's parent: refused. */
static void a_child_waits_for_another_process(void **state)
{
    (void)state;
    lock_dir("child-other");
    pid_t pid = holder_child(GPU, 60);
    assert_int_equal(exec_taker(GPU, owner), 1);
    reap(pid);
    assert_int_equal(exec_taker(GPU, owner), 0);
}

/* Whether GPU's lock file is free: a fresh open file of it takes the flock at once. */
static int lock_file_free(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/gpuverify-gpu-%s.lock", getenv("GPUVERIFY_LOCK_DIR"), GPU);
    int fd = open(path, O_RDWR);
    assert_true(fd >= 0);
    int free_now = flock(fd, LOCK_EX | LOCK_NB) == 0;
    close(fd);
    return free_now;
}

/* A child forked while this process holds a GPU, several GPUs and the host's links holds none
 * of them: each is free once the parent gives it back, and the child takes the GPU then
 * without waiting for the parent's owner. */
static void a_forked_child_holds_none_of_its_parents_gpus(void **state)
{
    (void)state;
    lock_dir("fork");
    assert_int_equal(gv_gpu_lock_take(owner, GPU, 0, NULL), 0);
    assert_int_equal(gv_several_gpus_take(owner, 0, NULL), 0);
    int links = gv_host_copies_take(0, NULL);
    assert_true(links >= 0);
    int go[2], said[2];
    assert_int_equal(pipe(go), 0);
    assert_int_equal(pipe(said), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) { /* past fork's handlers: running here, it says so */
        char c = 'r';
        close(go[1]), close(said[0]);
        if (write(said[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
            _exit(3);
        c = gv_gpu_lock_take(other_owner, GPU, 0.2, NULL) == 0 ? 'y' : 'n';
        if (write(said[1], &c, 1) != 1)
            _exit(3);
        pause(); /* holds what it took until killed */
        _exit(0);
    }
    close(go[0]), close(said[1]);
    char c = 0;
    assert_int_equal(read(said[0], &c, 1), 1);
    gv_gpu_lock_give(GPU);
    assert_true(lock_file_free()); /* the child's copy of the file kept it locked */
    /* So did its copies of the several GPUs' and the host links' lock files: another process
     * waited for a child that never used them. */
    gv_several_gpus_give();
    gv_host_copies_give(links);
    reap(holder_child(SEVERAL, 0));
    reap(holder_child(HOST_LINKS, 0));
    assert_int_equal(write(go[1], "g", 1), 1);
    assert_int_equal(read(said[0], &c, 1), 1);
    assert_int_equal(c, 'y'); /* the parent's owner, gone in the child, held it there */
    reap(pid);
    close(go[1]), close(said[0]);
}

static void *wait_for_several(void *arg)
{
    *(int *)arg = gv_several_gpus_take(owner, 2, NULL);
    return NULL;
}

/* A thread waiting for the several-GPUs lock (another process holds it) does not hold up a
 * fork of another thread: the fork handlers wait for no such take. */
static void a_fork_does_not_wait_for_a_take_of_several_gpus(void **state)
{
    (void)state;
    lock_dir("fork-several");
    pid_t holder = holder_child(SEVERAL, 60);
    int got = -1;
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, wait_for_several, &got), 0);
    struct timespec settle = {0, 200000000};
    nanosleep(&settle, NULL); /* the thread is in its wait */
    double t0 = gv_now_s();
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(0);
    double took = gv_now_s() - t0;
    waitpid(pid, NULL, 0);
    assert_true(took < 1.0); /* the wait has 1.8 s left */
    pthread_join(t, NULL);
    assert_int_equal(got, 1); /* the holder kept it all along */
    reap(holder);
}

static void nothing_to_coordinate_through(void **state)
{
    (void)state;
    setenv("GPUVERIFY_LOCK_DIR", "/nonexistent/gpuverify-locks", 1);
    assert_int_equal(gv_gpu_lock_take(owner, GPU, 5, NULL), 0); /* at once: no file, no wait */
    gv_gpu_lock_give(GPU);
    gv_gpu_holder h;
    assert_int_equal(gv_gpu_lock_take(owner, NULL, 5, &h), 0);
    assert_int_equal(h.pid, 0);
    assert_int_equal(gv_gpu_lock_take(owner, "../../etc/passwd", 5, NULL), 0);
    assert_int_equal(gv_gpu_lock_take(owner, "", 5, NULL), 0);
    gv_gpu_lock_give(NULL);
    gv_gpu_lock_give("garbage");
}

/* Root's runs lock where only root enters: a user's process cannot hold their GPUs. */
static void roots_locks_are_roots_alone(void **state)
{
    (void)state;
    if (geteuid() != 0)
        skip();
    unsetenv("GPUVERIFY_LOCK_DIR");
    const char *gpu = "0000:fe:1f.7"; /* no fake's GPU: nothing else here takes it */
    assert_int_equal(gv_gpu_lock_take(owner, gpu, 0, NULL), 0);
    struct stat st;
    assert_int_equal(lstat("/run/gpuverify", &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(st.st_uid, 0);
    assert_int_equal(st.st_mode & 0077, 0);
    assert_int_equal(stat("/run/gpuverify/gpuverify-gpu-0000:fe:1f.7.lock", &st), 0);
    assert_int_equal(exec_taker(gpu, owner), 0); /* our child, under our hold */
    gv_gpu_lock_give(gpu);
    unlink("/run/gpuverify/gpuverify-gpu-0000:fe:1f.7.lock");
}

/* Something not a regular file where the lock file goes (a FIFO would block a read-only open,
 * a link would lead anywhere): not a lock to run without, said at once, its target untouched. */
static void a_planted_lock_file_is_refused(void **state)
{
    (void)state;
    lock_dir("planted");
    char path[512], target[512];
    snprintf(path, sizeof path, "%s/gpuverify-gpu-%s.lock", getenv("GPUVERIFY_LOCK_DIR"), GPU);
    snprintf(target, sizeof target, "%s/target", getenv("GPUVERIFY_LOCK_DIR"));
    assert_int_equal(mkfifo(path, 0444), 0);
    double t0 = gv_now_s();
    gv_gpu_holder h;
    assert_int_equal(gv_gpu_lock_take(owner, GPU, 5, &h), 1);
    assert_true(gv_now_s() - t0 < 2.5); /* half the 5 s it would wait for a holder */
    assert_int_equal(h.foreign, -2);
    char text[200];
    gv_gpu_holder_text(&h, text, sizeof text);
    assert_non_null(strstr(text, "not a regular file"));
    unlink(path);
    assert_int_equal(symlink(target, path), 0);
    assert_int_equal(gv_gpu_lock_take(owner, GPU, 5, &h), 1);
    assert_int_equal(h.foreign, -2);
    struct stat st;
    assert_int_equal(lstat(target, &st), -1); /* nothing made where the link points */
    unlink(path);
}

/* A lock held by a process that is not gpuverify (any user of a shared lock directory can
 * flock a file there and write a note naming PID 1): reported as what it is, with the PID the
 * kernel names, never as another gpuverify holding the GPU for decades. */
static void a_foreign_holder_is_named_as_such(void **state)
{
    (void)state;
    lock_dir("foreign");
    char path[512];
    snprintf(path, sizeof path, "%s/gpuverify-gpu-%s.lock", getenv("GPUVERIFY_LOCK_DIR"), GPU);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fd = open(path, O_RDWR | O_CREAT, 0666);
        const char note[] = "pid=1\nparent=0\nsince_ms=1\nuntil_exit=0\nprogram=systemd\n";
        if (fd < 0 || flock(fd, LOCK_EX) != 0 || write(fd, note, sizeof note - 1) < 0 ||
            write(fds[1], "y", 1) != 1)
            _exit(3);
        pause();
        _exit(0);
    }
    close(fds[1]);
    char c = 0;
    assert_int_equal(read(fds[0], &c, 1), 1);
    close(fds[0]);
    gv_gpu_holder h;
    assert_int_equal(gv_gpu_lock_take(owner, GPU, 0.1, &h), 1);
    assert_int_equal(h.foreign, 1);
    assert_int_equal(h.pid, (long)pid); /* /proc/locks: the process that holds it */
    assert_int_equal(h.noted_pid, 1);
    assert_true(h.held_s < 0);
    char text[200];
    gv_gpu_holder_text(&h, text, sizeof text);
    assert_non_null(strstr(text, "not gpuverify"));
    reap(pid);
    assert_int_equal(gv_gpu_lock_take(owner, GPU, 1, &h), 0); /* its death frees the GPU */
    gv_gpu_lock_give(GPU);
}

/* A lock directory that is a link, or one others may write in without the sticky bit, is not
 * used: a planted link would lead the lock files anywhere. */
static void an_unsafe_lock_dir_is_not_used(void **state)
{
    (void)state;
    char real[256], link[256];
    snprintf(real, sizeof real, "%s/real", lock_dirs);
    snprintf(link, sizeof link, "%s/link", lock_dirs);
    mkdir(real, 0700);
    assert_int_equal(symlink(real, link), 0);
    setenv("GPUVERIFY_LOCK_DIR", link, 1);
    assert_int_equal(gv_gpu_lock_take(owner, GPU, 0, NULL), 0);
    gv_gpu_lock_give(GPU);
    char path[512];
    snprintf(path, sizeof path, "%s/gpuverify-gpu-%s.lock", real, GPU);
    struct stat st;
    assert_int_equal(stat(path, &st), -1); /* no lock file made through the link */
    assert_int_equal(chmod(real, 0777), 0);
    setenv("GPUVERIFY_LOCK_DIR", real, 1);
    assert_int_equal(gv_gpu_lock_take(owner, GPU, 0, NULL), 0);
    gv_gpu_lock_give(GPU);
    assert_int_equal(stat(path, &st), -1); /* writable by all, not sticky: not used */
    unlink(link);
}

static void the_lock_file_is_every_users(void **state)
{
    (void)state;
    lock_dir("mode");
    mode_t old = umask(077);
    assert_int_equal(gv_gpu_lock_take(owner, GPU, 0, NULL), 0);
    umask(old);
    char path[512];
    snprintf(path, sizeof path, "%s/gpuverify-gpu-%s.lock", getenv("GPUVERIFY_LOCK_DIR"), GPU);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    /* users' runs share their lock files; root's are root's alone */
    assert_int_equal(st.st_mode & 0777, geteuid() == 0 ? 0600 : 0666);
    gv_gpu_lock_give(GPU);
}

#define CUDA_CHECKS "system.kernel,cuda.init,cuda.alloc,gemm.fp16"

/* gv_run of `checks` through gpuverify-worker (isolation process) or in this process (none),
 * its budget (0: the level's) and the context's deadline (0: the default). */
static gv_report *run_checks(int isolation, const char *checks, double budget_s, double deadline_s)
{
    gv_ctx *ctx = worker_ctx("h100x1-compute", deadline_s);
    gv_run_opts o = GV_RUN_OPTS_INIT;
    o.checks = checks;
    o.gemm_size = 32;
    o.copy_bytes = 1 << 20;
    o.isolation = isolation;
    o.budget_s = budget_s;
    gv_report *r = NULL;
    assert_int_equal(gv_run(ctx, &o, &r), GV_OK);
    gv_ctx_destroy(ctx);
    return r;
}

/* A caller's run in workers waits for its own test of the GPU in the process (another context
 * holding it): their workers tested the GPU under the other context's hold, both at once. */
static void a_run_waits_for_another_context_of_its_process(void **state)
{
    (void)state;
    lock_dir("run-context");
    assert_int_equal(gv_gpu_lock_take(other_owner, GPU, 0, NULL), 0);
    gv_report *r = run_checks(GV_ISOLATION_PROCESS, CUDA_CHECKS, 4, 0); /* waits 2 s */
    char want[64];
    snprintf(want, sizeof want, "another context of the caller (PID %ld", (long)getpid());
    gv_check_result c = result_of(r, "cuda.init", "gpu0");
    assert_int_equal(c.verdict, GV_ERROR);
    assert_non_null(strstr(c.message, "is being tested by"));
    assert_non_null(strstr(c.message, want));
    assert_int_equal(verdict_of(r, "system.kernel", "node"), GV_PASS);
    gv_report_free(r);
    gv_gpu_lock_give(GPU);
    r = run_checks(GV_ISOLATION_PROCESS, CUDA_CHECKS, 60, 0); /* given back: tested */
    assert_int_equal(verdict_of(r, "cuda.init", "gpu0"), GV_PASS);
    gv_report_free(r);
}

static void a_run_waits_for_another_gpuverify(void **state)
{
    (void)state;
    for (int isolation = GV_ISOLATION_PROCESS; isolation <= GV_ISOLATION_NONE; isolation++) {
        lock_dir(isolation == GV_ISOLATION_NONE ? "run-wait-none" : "run-wait-worker");
        pid_t pid = holder_child(GPU, 1.0);
        double t0 = gv_now_s();
        gv_report *r = run_checks(isolation, CUDA_CHECKS, 60, 0);
        assert_true(gv_now_s() - t0 > 0.8);                            /* it waited ... */
        assert_int_equal(verdict_of(r, "cuda.init", "gpu0"), GV_PASS); /* ... then tested */
        assert_int_equal(verdict_of(r, "gemm.fp16", "gpu0"), GV_PASS);
        assert_int_equal(verdict_of(r, "system.kernel", "node"), GV_PASS);
        gv_report_free(r);
        waitpid(pid, NULL, 0);
    }
}

static void *hold_a_second(void *arg)
{
    (void)arg;
    struct timespec t = {1, 0};
    nanosleep(&t, NULL);
    gv_gpu_lock_give(GPU);
    return NULL;
}

/* Another context of this process (a scheduler's second thread) running on the GPU: the run
 * in this process waits for it as for another process. */
static void a_run_in_process_waits_for_another_context(void **state)
{
    (void)state;
    lock_dir("run-wait-context");
    assert_int_equal(gv_gpu_lock_take(other_owner, GPU, 0, NULL), 0);
    /* Held past half the budget: named as what it is, with how long it has held the GPU. */
    gv_report *held = run_checks(GV_ISOLATION_NONE, CUDA_CHECKS, 4, 0);
    gv_check_result c = result_of(held, "cuda.init", "gpu0");
    assert_int_equal(c.verdict, GV_ERROR);
    char want[80];
    snprintf(want, sizeof want, "another context of this process (PID %ld", (long)getpid());
    assert_non_null(strstr(c.message, want));
    assert_non_null(strstr(c.message, "which has held it for"));
    gv_report_free(held);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, hold_a_second, NULL), 0);
    double t0 = gv_now_s();
    gv_report *r = run_checks(GV_ISOLATION_NONE, CUDA_CHECKS, 60, 0);
    assert_true(gv_now_s() - t0 > 0.8);
    assert_int_equal(verdict_of(r, "cuda.init", "gpu0"), GV_PASS);
    gv_report_free(r);
    pthread_join(t, NULL);
}

static void a_run_names_the_gpuverify_that_kept_its_gpu(void **state)
{
    (void)state;
    for (int isolation = GV_ISOLATION_PROCESS; isolation <= GV_ISOLATION_NONE; isolation++) {
        lock_dir(isolation == GV_ISOLATION_NONE ? "run-kept-none" : "run-kept-worker");
        /* The same run with the GPU free: what the host takes for it now. */
        double t0 = gv_now_s();
        gv_report_free(run_checks(isolation, CUDA_CHECKS, 4, 0));
        double alone = gv_now_s() - t0;
        pid_t pid = holder_child(GPU, 60);
        t0 = gv_now_s();
        gv_report *r = run_checks(isolation, CUDA_CHECKS, 4, 0); /* waits 2 s, half its budget */
        double took = gv_now_s() - t0;
        assert_true(took > 1.5);
        assert_true(took < 4.5 + alone); /* within its budget, the host's slowness apart */
        char want[64];
        snprintf(want, sizeof want, "another gpuverify (PID %ld", (long)pid);
        static const char *const ids[] = {"cuda.init", "cuda.alloc", "gemm.fp16"};
        for (size_t i = 0; i < 3; i++) {
            /* The GPU's row, as the test's own: on "node" the GPU's verdict read PASS. */
            gv_check_result c = result_of(r, ids[i], "gpu0");
            assert_int_equal(c.verdict, GV_ERROR); /* never a PASS of an untested GPU */
            assert_non_null(strstr(c.message, "not run: GPU 0000:18:00.0 is being tested by"));
            assert_non_null(strstr(c.message, want));
            assert_non_null(strstr(c.remediation, "run again"));
            assert_int_equal(c.action, GV_ACTION_WAIT); /* the other run's hold, not the GPU */
        }
        assert_int_equal(gv_report_action(r), GV_ACTION_WAIT);
        /* The passive checks ran as ever. */
        assert_int_equal(verdict_of(r, "system.kernel", "node"), GV_PASS);
        gv_report_free(r);
        reap(pid);
    }
}

/* gv_run's worker holds the GPUs, and its NCCL sweep works under that hold (without it:
 * GV_ERR_BUSY after half the deadline, an ERROR row). */
static void the_nccl_sweep_works_under_the_runs_hold(void **state)
{
    (void)state;
    lock_dir("nccl");
    /* A deadline long enough that waiting for the hold (half of it, 10 s) cannot be mistaken
     * for a slow host's sweep. */
    gv_ctx *ctx = worker_ctx("h100x8", 20);
    gv_run_opts o = GV_RUN_OPTS_INIT;
    o.checks = "nccl.allreduce";
    o.gpus = "0,1";
    o.nccl_bytes = 64 << 10;
    o.isolation = GV_ISOLATION_PROCESS;
    gv_report *r = NULL;
    double t0 = gv_now_s();
    assert_int_equal(gv_run(ctx, &o, &r), GV_OK);
    assert_true(gv_now_s() - t0 < 10);
    assert_int_equal(verdict_of(r, "nccl.allreduce", "node"), GV_PASS);
    gv_report_free(r);
    gv_ctx_destroy(ctx);
}

/* A sweep over several GPUs called directly takes the several-GPUs lock before any GPU's: while
 * another process holds it (a run's tests across GPUs, which may wait for a GPU this sweep would
 * take), the sweep holds no GPU and waits its turn, half its deadline, then GV_ERR_BUSY naming
 * the holder. A sweep on one GPU needs no turn. */
static void a_sweep_over_several_gpus_waits_its_turn(void **state)
{
    (void)state;
    lock_dir("sweep");
    pid_t pid = holder_child(SEVERAL, 60);
    gv_ctx *ctx = worker_ctx("h100x8", 2);
    gv_nccl_opts o = GV_NCCL_OPTS_INIT;
    o.gpu_count = 2;
    o.gpus[0] = 0, o.gpus[1] = 1;
    o.max_bytes = 64 << 10;
    gv_nccl_result r = GV_NCCL_RESULT_INIT;
    assert_int_equal(gv_nccl_bench(ctx, &o, &r), GV_ERR_BUSY);
    char want[64];
    snprintf(want, sizeof want,
             "several GPUs of this node are being tested by another "
             "gpuverify (PID %ld",
             (long)pid);
    assert_non_null(strstr(gv_ctx_last_error(ctx), want));
    o.gpu_count = 1;
    assert_int_equal(gv_nccl_bench(ctx, &o, &r), GV_OK);
    reap(pid);
    o.gpu_count = 2;
    assert_int_equal(gv_nccl_bench(ctx, &o, &r), GV_OK);
    gv_ctx_destroy(ctx);
}

/* Each GPU's copies are measured with the host's links to themselves, whichever process
 * measures: another's copies are waited for (not this check's time), the holder given back by
 * its give or its death; one that holds them past two of the check's deadlines is named and the
 * copies are not measured, a wait, not a verdict on the GPU. */
static void copies_wait_for_the_host_links(void **state)
{
    (void)state;
    for (int isolation = GV_ISOLATION_PROCESS; isolation <= GV_ISOLATION_NONE; isolation++) {
        lock_dir(isolation == GV_ISOLATION_NONE ? "links-none" : "links-worker");
        pid_t pid = holder_child(HOST_LINKS, 60);
        gv_report *r = run_checks(isolation, "cuda.init,cuda.copy", 0,
                                  1); /* 2 s of waiting, then not measured */
        gv_check_result c = result_of(r, "cuda.copy", "gpu0");
        assert_int_equal(c.verdict, GV_ERROR);
        char want[96];
        snprintf(want, sizeof want, "not measured: another gpuverify (PID %ld", (long)pid);
        assert_non_null(strstr(c.message, want));
        assert_int_equal(c.action, GV_ACTION_WAIT);
        assert_int_equal(verdict_of(r, "cuda.init", "gpu0"), GV_PASS);
        gv_report_free(r);
        reap(pid); /* its death gives the links back */
        pid = holder_child(HOST_LINKS, 0.8);
        double t0 = gv_now_s();
        r = run_checks(isolation, "cuda.init,cuda.copy", 0, 30);
        assert_true(gv_now_s() - t0 > 0.6);
        assert_int_equal(verdict_of(r, "cuda.copy", "gpu0"), GV_PASS);
        gv_report_free(r);
        waitpid(pid, NULL, 0);
    }
}

/* A direct call waits up to half the context's deadline, then says who holds the GPU. */
static void a_call_says_who_holds_the_gpu(void **state)
{
    (void)state;
    lock_dir("call");
    pid_t pid = holder_child(GPU, 60);
    gv_ctx *ctx = worker_ctx("h100x1-compute", 1);
    gv_gemm_opts o = small_gemm(GV_DTYPE_FP16);
    gv_gemm_result g = GV_GEMM_RESULT_INIT;
    double t0 = gv_now_s();
    /* Not a verdict on the GPU: the call could not do its job. */
    assert_int_equal(gv_gemm_bench(ctx, 0, &o, &g), GV_ERR_BUSY);
    assert_true(gv_now_s() - t0 >= 0.5); /* half the deadline */
    assert_non_null(strstr(gv_ctx_last_error(ctx), "is being tested by another gpuverify"));
    reap(pid);
    gv_gemm_result again = GV_GEMM_RESULT_INIT;
    assert_int_equal(gv_gemm_bench(ctx, 0, &o, &again), GV_OK);
    assert_int_equal(again.verdict, GV_PASS);
    gv_ctx_destroy(ctx);
}

/* What the caller tells a worker on standby, one line a call (gv_run_stream.standby). */
static int tell_standby(void *user, char *work, size_t cap)
{
    static const char *const lines[] = {"1 0,1", "1 7", "1 nonsense", "1 2", "0 0,1,2 driver.cuda"};
    int *next = user;
    const char *line = lines[(*next)++];
    snprintf(work, cap, "%s", line + 2);
    return line[0] - '0';
}

/* The across worker's run over GPUs 0-2 of h100x8, its plan's checks `checks` (driver.cuda
 * for CUDA's facts: which GPU is which ordinal), told the lines of tell_standby. */
static gv_ctx *run_on_standby(const char *checks)
{
    gv_ctx *ctx = worker_ctx("h100x8", 0);
    ctx->in_worker = 1;
    gv_run_opts o = GV_RUN_OPTS_INIT;
    o.checks = checks;
    o.gpus = "0,1,2";
    gv_run_plan plan;
    assert_int_equal(gv_run_plan_make(ctx, &o, &plan), GV_OK);
    plan.standby = 1;
    int next = 0;
    gv_run_stream stream = {.standby = tell_standby, .user = &next};
    gv_report *r = NULL;
    assert_int_equal(gv_run_in_process(ctx, &plan, &stream, &r), GV_OK);
    assert_int_equal(next, 5);
    assert_int_equal(verdict_of(r, "driver.cuda", "node"), GV_PASS);
    gv_report_free(r);
    return ctx;
}

/* "prepare" lines before the work: the GPUs of the plan's that are free get their context and
 * our kernels ahead, kept for the sessions to come, in the order they are offered; one another
 * gpuverify holds, one not the plan's do not, and a line that names no GPU changes nothing.
 * While another process holds several GPUs (its tests across GPUs), none is taken ahead: this
 * worker would hold some while its tests wait for the others'. A plan whose tests need no GPU
 * (nccl.version) makes none ready. */
static void the_across_worker_makes_free_gpus_ready(void **state)
{
    (void)state;
    lock_dir("ahead");
    pid_t pid = holder_child("0000:2a:00.0", 60); /* GPU 1 of h100x8 */
    gv_ctx *ctx = run_on_standby("driver.cuda,cuda.p2p");
    assert_int_equal(ctx->kept[0].retained, 1);
    assert_non_null(ctx->kept[0].module);
    assert_int_equal(ctx->kept[1].retained, 0); /* the child holds it */
    assert_int_equal(ctx->kept[2].retained, 1); /* offered last: taken all the same */
    assert_int_equal(ctx->kept[7].retained, 0); /* not the plan's */
    /* Taken to make it ready, GPU 0 was given back: this process holds it no longer. */
    assert_int_equal(exec_taker(GPU, NULL), 0);
    gv_ctx_destroy(ctx);
    reap(pid);
    pid = holder_child(SEVERAL, 60);
    ctx = run_on_standby("driver.cuda,cuda.p2p");
    assert_int_equal(ctx->kept[0].retained, 0);
    assert_int_equal(ctx->kept[2].retained, 0);
    gv_ctx_destroy(ctx);
    reap(pid);
    ctx = run_on_standby("driver.cuda,nccl.version");
    assert_int_equal(ctx->kept[0].retained, 0);
    gv_ctx_destroy(ctx);
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--take"))
        return gv_gpu_lock_take(owner, argv[2], 0.3, NULL);
    self = argv[0];
    snprintf(lock_dirs, sizeof lock_dirs, "%s/gv-lock-test-XXXXXX", P_tmpdir);
    if (!mkdtemp(lock_dirs))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_context_counts_its_takes_and_another_waits),
        cmocka_unit_test(another_process_is_waited_for),
        cmocka_unit_test(a_holder_is_named_and_its_death_frees_the_gpu),
        cmocka_unit_test(a_worker_gives_its_gpus_back_by_exiting),
        cmocka_unit_test(a_child_works_under_its_parents_hold),
        cmocka_unit_test(a_child_waits_for_another_process),
        cmocka_unit_test(a_run_waits_for_another_context_of_its_process),
        cmocka_unit_test(a_forked_child_holds_none_of_its_parents_gpus),
        cmocka_unit_test(a_fork_does_not_wait_for_a_take_of_several_gpus),
        cmocka_unit_test(nothing_to_coordinate_through),
        cmocka_unit_test(the_lock_file_is_every_users),
        cmocka_unit_test(roots_locks_are_roots_alone),
        cmocka_unit_test(a_planted_lock_file_is_refused),
        cmocka_unit_test(a_foreign_holder_is_named_as_such),
        cmocka_unit_test(an_unsafe_lock_dir_is_not_used),
        cmocka_unit_test(a_run_waits_for_another_gpuverify),
        cmocka_unit_test(a_run_in_process_waits_for_another_context),
        cmocka_unit_test(a_run_names_the_gpuverify_that_kept_its_gpu),
        cmocka_unit_test(the_nccl_sweep_works_under_the_runs_hold),
        cmocka_unit_test(a_sweep_over_several_gpus_waits_its_turn),
        cmocka_unit_test(a_call_says_who_holds_the_gpu),
        cmocka_unit_test(copies_wait_for_the_host_links),
        cmocka_unit_test(the_across_worker_makes_free_gpus_ready),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    remove_tree(lock_dirs);
    return failed;
}
