/* SPDX-License-Identifier: Apache-2.0 */
#include "checks/busy.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "backends/nvml_backend.h"
#include "checks/policy.h"
#include "core/util.h"
#include "report/report.h"
#include "sys/os.h"
#include "sys/process.h"

/* Memory held beyond what the listed processes hold that means processes NVML did not list. */
#define GV_BUSY_UNLISTED_BYTES (256ull << 20)

/* pid 0: the processes NVML does not list to this one, with what they hold together. */
static void add(gv_busy *b, unsigned gpu, const gvnv_process_info *p)
{
    for (size_t i = 0; i < b->n; i++)
        if (b->seen[i].pid == p->pid && b->seen[i].gpu == gpu)
            return;
    if (b->n == GV_BUSY_MAX)
        return;
    b->seen[b->n].pid = p->pid;
    b->seen[b->n].gpu = gpu;
    b->seen[b->n].bytes = p->used_gpu_memory == ~0ull ? -1 : (long long)p->used_gpu_memory;
    b->seen[b->n].name[0] = '\0';
    if (!p->pid) {
        b->n++;
        return;
    }
    gv_process_comm(p->pid, b->seen[b->n].name, sizeof b->seen[b->n].name);
    /* MPS's server (nvidia-cuda-mps-server, its comm cut to 15 characters) holds the contexts
     * of its clients, this one's among them, and NVML lists each client on its own: with the
     * MPS daemon running and nobody else on an H100, it left every figure "not judged". */
    if (!strcmp(b->seen[b->n].name, "nvidia-cuda-mps"))
        return;
    b->n++;
}

void gv_busy_sample(gv_ctx *ctx, const gv_gpu_record *g, gv_busy *b)
{
    const struct gv_nvml_api *nv = gv_nvml(ctx);
    gvnv_device dev = NULL;
    if (!nv || !nv->device_get_handle_by_pci_bus_id || !g->gpu.pci_bus_id[0] ||
        nv->device_get_handle_by_pci_bus_id(g->gpu.pci_bus_id, &dev) != GVNV_SUCCESS)
        return;
    gv_gpu_holders h;
    gv_gpu_holders_read(nv, dev, &h);
    unsigned self = (unsigned)getpid();
    for (unsigned i = 0; i < h.n; i++)
        if (h.listed[i].pid != self)
            add(b, g->gpu.index, &h.listed[i]);
    if (h.unlisted > (long long)GV_BUSY_UNLISTED_BYTES) {
        gvnv_process_info unseen = {.pid = 0, .used_gpu_memory = (unsigned long long)h.unlisted};
        add(b, g->gpu.index, &unseen);
    }
}

void gv_busy_text(const gv_busy *b, char *out, size_t cap)
{
    out[0] = '\0';
    for (size_t i = 0; i < b->n; i++) {
        char one[256], mem[32] = "";
        if (b->seen[i].bytes >= 0)
            snprintf(mem, sizeof mem, "%.1f GiB", (double)b->seen[i].bytes / (1 << 30));
        const char *name = b->seen[i].name;
        if (!b->seen[i].pid)
            snprintf(one, sizeof one,
                     "GPU %u used by processes NVML does not list to this one (%s) holding %s",
                     b->seen[i].gpu,
                     gv_host_pid_namespace("/") == 1
                         ? "none lives in this, the host's, PID namespace: memory left behind by a "
                           "process that ended, which a GPU reset frees"
                         : "another PID namespace: a container's",
                     mem);
        else
            snprintf(one, sizeof one, "GPU %u used by PID %u%s%s%s%s%s", b->seen[i].gpu,
                     b->seen[i].pid, name[0] || mem[0] ? " (" : "", name,
                     name[0] && mem[0] ? ", " : "", mem, name[0] || mem[0] ? ")" : "");
        gv_append(out, cap, "; ", one);
    }
}

long long gv_busy_bytes(const gv_busy *b, unsigned gpu)
{
    long long sum = 0;
    for (size_t i = 0; i < b->n; i++)
        if (b->seen[i].gpu == gpu && b->seen[i].bytes > 0)
            sum += b->seen[i].bytes;
    return sum;
}

/* The row as the busy rule has it, whatever it said before. */
static void judge(const gv_busy *b, const gv_policy *p, gv_check_result *res)
{
    int rule = p ? p->busy : GV_BUSY_SKIP;
    char who[384], measured[sizeof res->message];
    gv_busy_text(b, who, sizeof who);
    snprintf(measured, sizeof measured, "%s", res->message);
    res->verdict = rule == GV_BUSY_WARN ? GV_WARN : rule == GV_BUSY_FAIL ? GV_FAIL : GV_SKIP;
    snprintf(res->message, sizeof res->message, "%s: %s during the test; measured: %s",
             rule == GV_BUSY_SKIP ? "not judged" : "GPU shared", who, measured);
    gv_result_expected(res, p ? "policy" : "default", "an idle GPU (busy = %s)",
                       gv_busy_rule_name(rule));
    gv_result_remedy(res, "run the check while no job uses the GPU (drain it first), or set "
                          "busy = ignore in the policy to judge figures on a shared GPU");
    /* The load, not the GPU: judged again once the other process is gone (a SKIP says none). */
    gv_result_action(res, GV_ACTION_WAIT);
}

void gv_busy_apply(const gv_busy *b, const gv_policy *p, gv_check_result *res, int wrong)
{
    int rule = p ? p->busy : GV_BUSY_SKIP;
    if (!res || !b->n || wrong || rule == GV_BUSY_IGNORE || res->verdict == GV_SKIP ||
        res->verdict == GV_ERROR)
        return;
    judge(b, p, res);
}

/* The inventory GPUs a row speaks of: "gpu3" that one, "node" every GPU of this process. */
static void sample_subject(gv_ctx *ctx, const gv_facts *f, const char *subject, gv_busy *b)
{
    unsigned index;
    char end;
    int one = sscanf(subject, "gpu%u%c", &index, &end) == 1;
    for (size_t i = 0; i < f->gpu_count; i++)
        if (!one || f->gpus[i].gpu.index == index)
            gv_busy_sample(ctx, &f->gpus[i], b);
}

void gv_busy_judge_refusal(gv_ctx *ctx, const gv_facts *f, const gv_policy *p, gv_check_result *row)
{
    int rule = p ? p->busy : GV_BUSY_SKIP;
    if (rule == GV_BUSY_IGNORE || (row->verdict != GV_FAIL && row->verdict != GV_ERROR) ||
        (!strstr(row->message, "CUDA_ERROR_OUT_OF_MEMORY") &&
         !strstr(row->message, "CUDA_ERROR_DEVICE_UNAVAILABLE")))
        return;
    gv_busy b = {0};
    sample_subject(ctx, f, row->subject, &b);
    if (b.n)
        judge(&b, p, row);
}

int gv_busy_spares(const gv_busy *b, const gv_policy *p, const char *what, char *why, size_t cap)
{
    if (!b->n || (p && p->busy != GV_BUSY_SKIP))
        return 0;
    char who[384];
    gv_busy_text(b, who, sizeof who);
    snprintf(why, cap,
             "not run: %s; %s would take what that process may need next, and its figures "
             "on a shared GPU are not judged (busy = skip)",
             who, what);
    return 1;
}
