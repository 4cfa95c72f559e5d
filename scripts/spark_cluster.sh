#!/usr/bin/env bash
# A Spark standalone cluster on this machine's loopback, for one big run spread over
# Spark tasks (README, "One big run on a cluster"): a master at spark://127.0.0.1:PORT
# and WORKERS workers of CORES cores and MEMORY each, from the pyspark of .venv.
#
#   bash scripts/spark_cluster.sh start [WORKERS=2] [CORES=1] [MEMORY=4g]
#   bash scripts/spark_cluster.sh stop
#
# PORT is $CNSIM_SPARK_PORT (7077); logs and process ids go to
# ${TMPDIR:-/tmp}/cnsim-spark-cluster. A worker's MEMORY bounds its JVM; the Python
# processes of its tasks are bounded by spark.executor.pyspark.memory, if set.
set -euo pipefail
cd "$(dirname "$0")/.."
port="${CNSIM_SPARK_PORT:-7077}"
state="${TMPDIR:-/tmp}/cnsim-spark-cluster"
python=".venv/bin/python"

need_spark() {  # the venv's pyspark and Java, checked once the arguments are
    [ -x "$python" ] || { echo "error: no .venv here: run bash scripts/setup.sh first" >&2; exit 2; }
    command -v java >/dev/null || { echo "error: Java 17 is missing: run bash scripts/setup.sh" >&2; exit 2; }
    SPARK_HOME="$("$python" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')"
    export SPARK_HOME PYSPARK_PYTHON="$PWD/$python"
}

stop() {
    for pid_file in "$state"/*.pid; do
        [ -e "$pid_file" ] || continue
        kill "$(cat "$pid_file")" 2>/dev/null || true
        rm -f "$pid_file"
    done
}

case "${1:-}" in
start)
    workers="${2:-2}" cores="${3:-1}" memory="${4:-4g}"
    [[ "$workers" =~ ^[1-9][0-9]*$ ]] || { echo "error: WORKERS = '$workers': a count >= 1" >&2; exit 2; }
    [[ "$cores" =~ ^[1-9][0-9]*$ ]] || { echo "error: CORES = '$cores': a count >= 1" >&2; exit 2; }
    [[ "$memory" =~ ^[1-9][0-9]*[mg]$ ]] || { echo "error: MEMORY = '$memory': e.g. 4g or 512m" >&2; exit 2; }
    need_spark
    mkdir -p "$state"
    stop
    "$SPARK_HOME/bin/spark-class" org.apache.spark.deploy.master.Master --host 127.0.0.1 \
        --port "$port" --webui-port 0 >"$state/master.log" 2>&1 &
    echo $! >"$state/master.pid"
    for _ in $(seq 60); do
        grep -q "New state: ALIVE" "$state/master.log" && break
        sleep 1
    done
    for w in $(seq "$workers"); do
        "$SPARK_HOME/bin/spark-class" org.apache.spark.deploy.worker.Worker \
            "spark://127.0.0.1:$port" --host 127.0.0.1 --cores "$cores" --memory "$memory" \
            --webui-port 0 --work-dir "$state/work-$w" >"$state/worker-$w.log" 2>&1 &
        echo $! >"$state/worker-$w.pid"
    done
    for _ in $(seq 60); do
        [ "$(grep -c "Registering worker" "$state/master.log")" -ge "$workers" ] && break
        sleep 1
    done
    if [ "$(grep -c "Registering worker" "$state/master.log")" -lt "$workers" ]; then
        echo "error: the workers did not register in 60 s; logs in $state" >&2
        stop
        exit 1
    fi
    echo "spark://127.0.0.1:$port: $workers workers of $cores cores and $memory (logs in $state)"
    ;;
stop)
    stop
    echo "stopped the cluster of $state"
    ;;
*)
    echo "usage: bash scripts/spark_cluster.sh start [WORKERS] [CORES] [MEMORY] | stop" >&2
    exit 2
    ;;
esac
