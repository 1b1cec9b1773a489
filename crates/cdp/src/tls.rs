//! Reaching a browser the runtime did not launch: TLS (rustls, with the system's roots and an optional
//! CA file) and the extra headers a token gateway asks for, for both DevTools discovery (`https:`) and
//! the CDP WebSocket (`wss:`).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::CertificateDer;
use rustls::{ClientConfig, RootCertStore};

use crate::CdpError;

/// How to reach a remote browser's endpoint.
#[derive(Debug, Clone, Default)]
pub struct Remote {
    /// A PEM file of CA certificates trusted besides the system's (a private CA, a test's own).
    pub ca_file: Option<PathBuf>,
    /// Headers sent with every request and the WebSocket handshake (`Authorization: Bearer ...` for a
    /// token gateway). Basic credentials come from the URL's userinfo instead.
    pub headers: Vec<(String, String)>,
}

impl Remote {
    /// The rustls client configuration: the system's roots (`rustls-native-certs`) and those of
    /// `ca_file`, ring as the crypto provider, TLS 1.2 and 1.3.
    ///
    /// # Errors
    /// [`CdpError::Tls`] when `ca_file` cannot be read or holds no certificate, or no root is left.
    pub fn tls_config(&self) -> Result<Arc<ClientConfig>, CdpError> {
        let mut roots = RootCertStore::empty();
        // A system root that does not parse is skipped, as browsers do.
        let native = rustls_native_certs::load_native_certs();
        for cert in native.certs {
            let _ = roots.add(cert);
        }
        if let Some(path) = &self.ca_file {
            let added = ca_certs(path)?.into_iter().filter(|c| roots.add(c.clone()).is_ok()).count();
            if added == 0 {
                return Err(tls(format!("{}: no usable CA certificate", path.display())));
            }
        }
        if roots.is_empty() {
            return Err(tls("no trusted root certificates (none in the system, no ca_file)".into()));
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| tls(e.to_string()))?
            .with_root_certificates(roots)
            .with_no_client_auth();
        Ok(Arc::new(config))
    }
}

fn tls(reason: String) -> CdpError {
    CdpError::Tls { reason }
}

/// The certificates of the PEM file `path`.
fn ca_certs(path: &Path) -> Result<Vec<CertificateDer<'static>>, CdpError> {
    let certs: Result<Vec<_>, _> =
        CertificateDer::pem_file_iter(path).map_err(|e| tls(format!("{}: {e}", path.display())))?.collect();
    certs.map_err(|e| tls(format!("{}: {e}", path.display())))
}
