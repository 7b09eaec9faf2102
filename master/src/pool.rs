//! A scheduler with its embedded worker threads and, in cluster mode, its gRPC service: what a
//! run and an experiment set up around the tasks they submit.

use crate::cluster::{ClusterOptions, Server};
use crate::scheduler::{Scheduler, spawn_embedded_workers};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

/// Why a [`WorkerPool`] could not start.
#[derive(Debug, thiserror::Error)]
pub enum PoolError {
    /// The cluster service could not listen.
    #[error("cluster service: cannot serve on {0}: {1} (choose another --listen address)")]
    Serve(SocketAddr, #[source] std::io::Error),
    /// The embedded worker threads could not be started.
    #[error("cannot start worker threads: {0}")]
    Threads(#[source] std::io::Error),
}

/// A scheduler, its embedded workers and its cluster service.
pub struct WorkerPool {
    /// The scheduler tasks are submitted to.
    pub scheduler: Arc<Scheduler>,
    workers: Vec<std::thread::JoinHandle<()>>,
    /// The cluster service, if serving.
    pub server: Option<Server>,
}

impl WorkerPool {
    /// Starts `threads` embedded workers (none if 0) and, with `cluster`, the service for remote
    /// workers.
    pub fn start(threads: usize, cluster: Option<&ClusterOptions>) -> Result<WorkerPool, PoolError> {
        let lease_time = cluster.map_or(Duration::from_secs(600), |c| c.lease_time);
        let scheduler = Arc::new(Scheduler::new(lease_time));
        match cluster.map(|c| (c.verify, c.verify_key)) {
            Some((rate, Some(key))) => scheduler.verify_with_key(rate, key),
            Some((rate, None)) => scheduler.verify(rate),
            None => {}
        }
        if let Some(c) = cluster {
            scheduler.verify_by_master(c.verify_by_master);
        }
        let server = cluster.map(|c| crate::cluster::serve(&scheduler, c).map_err(|e| PoolError::Serve(c.listen, e)));
        let server = server.transpose()?;
        let workers = match threads {
            0 => Vec::new(),
            n => spawn_embedded_workers(&scheduler, n).map_err(PoolError::Threads)?,
        };
        Ok(WorkerPool { scheduler, workers, server })
    }

    /// Closes the scheduler, joins the embedded workers and stops the service; returns the
    /// cluster summary line, if serving.
    pub fn finish(self) -> Option<String> {
        self.scheduler.close();
        for w in self.workers {
            let _ = w.join();
        }
        // The server shuts down as it drops, once the summary is made.
        self.server.map(|server| crate::cluster::summary(&self.scheduler.stats(), &server.counters))
    }
}
