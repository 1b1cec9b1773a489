//! The worker's browser connections. The worker has no way to the browser of its own: each connection
//! is a route of the supervisor's relay on the browser's pipe ([`sb_cdp::relay`]), its messages carried
//! on the IPC stream ([`FromWorker::Cdp`] up, [`ToWorker::Cdp`](sb_protocol::ipc::ToWorker::Cdp) down).
//! Connection 0 is the page's; the escalation ladder opens another for its second try.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use sb_cdp::wire::{Inbound, Outbound, Wire};
use sb_cdp::CdpClient;
use sb_protocol::ipc::FromWorker;
use tokio::sync::mpsc;

/// Messages a connection buffers before the IPC reader waits for it.
const BUFFER: usize = 1024;

/// Where the IPC reader hands the browser's messages, by connection.
#[derive(Clone, Default)]
pub(crate) struct Deliveries {
    inbound: Arc<Mutex<HashMap<u32, mpsc::Sender<Inbound>>>>,
}

impl Deliveries {
    /// Hands `msg` to connection `conn` (dropped when the connection is closed); a
    /// [`Inbound::Closed`] ends it.
    pub(crate) async fn deliver(&self, conn: u32, msg: Inbound) {
        let closing = matches!(msg, Inbound::Closed(_));
        let tx = {
            let mut map = self.inbound.lock().unwrap();
            if closing {
                map.remove(&conn)
            } else {
                map.get(&conn).cloned()
            }
        };
        if let Some(tx) = tx {
            let _ = tx.send(msg).await;
        }
    }

    /// Ends every connection (the supervisor closed the stream).
    pub(crate) fn close_all(&self, reason: &str) {
        for (_, tx) in self.inbound.lock().unwrap().drain() {
            let _ = tx.try_send(Inbound::Closed(reason.to_string()));
        }
    }
}

/// Opens connections whose messages go out as [`FromWorker::Cdp`].
#[derive(Clone)]
pub(crate) struct Conns {
    out: mpsc::UnboundedSender<FromWorker>,
    deliveries: Deliveries,
    next: Arc<AtomicU32>,
}

impl Conns {
    /// Connections that send through `out` and receive through `deliveries`.
    pub(crate) fn new(out: mpsc::UnboundedSender<FromWorker>, deliveries: Deliveries) -> Conns {
        Conns { out, deliveries, next: Arc::new(AtomicU32::new(0)) }
    }

    /// A new connection to the browser (the supervisor opens its route at the first message).
    /// Closing the client ([`CdpClient::close`]) ends the route and detaches its sessions.
    pub(crate) fn open(&self) -> CdpClient {
        let conn = self.next.fetch_add(1, Ordering::Relaxed);
        let (in_tx, inbound) = mpsc::channel(BUFFER);
        self.deliveries.inbound.lock().unwrap().insert(conn, in_tx);
        let (outbound, mut out_rx) = mpsc::unbounded_channel::<Outbound>();
        let (out, deliveries) = (self.out.clone(), self.deliveries.clone());
        tokio::spawn(async move {
            while let Some(Outbound::Message(message)) = out_rx.recv().await {
                if out.send(FromWorker::Cdp { conn, message }).is_err() {
                    return;
                }
            }
            let _ = out.send(FromWorker::CdpClose { conn });
            deliveries.deliver(conn, Inbound::Closed("closed by the worker".into())).await;
        });
        CdpClient::over(Wire { inbound, outbound })
    }
}
