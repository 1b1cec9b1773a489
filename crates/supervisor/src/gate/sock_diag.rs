//! Which uid owns a loopback TCP connection's other end: the connection gate serves only the
//! runtime's own uid ([`crate::gate::proxy`]).
//!
//! Asked of the kernel for the one socket (`NETLINK_SOCK_DIAG`, `SOCK_DIAG_BY_FAMILY` with an
//! `inet_diag_req_v2` naming both ends: `sock_diag(7)`, `linux/inet_diag.h`), which answers in
//! microseconds however many sockets the machine has. Where the kernel does not answer so (no
//! `inet_diag` in a container's kernel, a seccomp filter), the socket table `/proc/net/tcp` is read
//! instead: the same answer, in time that grows with every socket of the network namespace (10 ms
//! for 3,000 rows, most of them `TIME_WAIT`, once per connection on the gate's thread).

use std::net::{IpAddr, SocketAddr};

/// The uid owning the TCP socket at `peer` that is connected to `local`; `None` when not found (or
/// for IPv6: the gate listens on 127.0.0.1).
pub fn peer_uid(peer: SocketAddr, local: SocketAddr) -> Option<u32> {
    match by_netlink(peer, local) {
        Ok(uid) => uid,
        Err(_) => by_table(peer, local),
    }
}

/// `SOCK_DIAG_BY_FAMILY` (`linux/sock_diag.h`).
const SOCK_DIAG_BY_FAMILY: u16 = 20;
/// `INET_DIAG_NOCOOKIE` (`linux/inet_diag.h`): match the socket by its addresses alone.
const NO_COOKIE: u32 = !0;
/// `sizeof(struct nlmsghdr)`.
const HEADER: usize = 16;
/// Where `idiag_uid` is in a `struct inet_diag_msg`: after family, state, timer, retrans (4 bytes),
/// the 48-byte `inet_diag_sockid`, expires, rqueue and wqueue (12).
const UID_AT: usize = 4 + 48 + 12;

/// The kernel's answer for the one socket: `Ok(Some(uid))`, `Ok(None)` when it has no such socket
/// (`ENOENT`), `Err` when it cannot be asked (then [`by_table`] is).
fn by_netlink(peer: SocketAddr, local: SocketAddr) -> std::io::Result<Option<u32>> {
    let (IpAddr::V4(src), IpAddr::V4(dst)) = (peer.ip(), local.ip()) else { return Ok(None) };
    // struct nlmsghdr + struct inet_diag_req_v2 (family, protocol, ext, pad, states, sockid).
    let mut req = Vec::with_capacity(HEADER + 56);
    req.extend_from_slice(&72u32.to_ne_bytes());
    req.extend_from_slice(&SOCK_DIAG_BY_FAMILY.to_ne_bytes());
    req.extend_from_slice(&(libc::NLM_F_REQUEST as u16).to_ne_bytes());
    req.extend_from_slice(&[0; 8]); // seq, pid
    req.extend_from_slice(&[libc::AF_INET as u8, libc::IPPROTO_TCP as u8, 0, 0]);
    req.extend_from_slice(&u32::MAX.to_ne_bytes()); // every state
    req.extend_from_slice(&peer.port().to_be_bytes()); // the socket's own end ...
    req.extend_from_slice(&local.port().to_be_bytes()); // ... and its remote one
    let mut src16 = [0u8; 16];
    src16[..4].copy_from_slice(&src.octets());
    let mut dst16 = [0u8; 16];
    dst16[..4].copy_from_slice(&dst.octets());
    req.extend_from_slice(&src16);
    req.extend_from_slice(&dst16);
    req.extend_from_slice(&0u32.to_ne_bytes()); // any interface
    req.extend_from_slice(&NO_COOKIE.to_ne_bytes());
    req.extend_from_slice(&NO_COOKIE.to_ne_bytes());
    debug_assert_eq!(req.len(), 72);

    // SAFETY: plain socket syscalls on a descriptor of our own, closed by `OwnedFd`; the buffers
    // are ours and their lengths are passed with them.
    let fd = unsafe {
        let fd =
            libc::socket(libc::AF_NETLINK, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, libc::NETLINK_SOCK_DIAG);
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        <std::os::fd::OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(fd)
    };
    let raw = std::os::fd::AsRawFd::as_raw_fd(&fd);
    // SAFETY: sockaddr_nl is plain integers, for which all zeroes is a valid value (the kernel's
    // address: pid 0, no groups).
    let mut kernel: libc::sockaddr_nl = unsafe { std::mem::zeroed() };
    kernel.nl_family = libc::AF_NETLINK as u16;
    // SAFETY: as above.
    let sent = unsafe {
        libc::sendto(
            raw,
            req.as_ptr().cast(),
            req.len(),
            0,
            (&kernel as *const libc::sockaddr_nl).cast(),
            size_of::<libc::sockaddr_nl>() as u32,
        )
    };
    if sent < 0 {
        return Err(std::io::Error::last_os_error());
    }
    let mut answer = [0u8; 512];
    // SAFETY: as above.
    let got = unsafe { libc::recv(raw, answer.as_mut_ptr().cast(), answer.len(), 0) };
    if got < 0 {
        return Err(std::io::Error::last_os_error());
    }
    parse(&answer[..got as usize])
}

/// The uid in the kernel's answer (`struct nlmsghdr` + `struct inet_diag_msg`), or the error it sent
/// (`NLMSG_ERROR`: `ENOENT` is "no such socket").
fn parse(answer: &[u8]) -> std::io::Result<Option<u32>> {
    let u16_at = |i: usize| answer.get(i..i + 2).map(|b| u16::from_ne_bytes([b[0], b[1]]));
    let u32_at = |i: usize| answer.get(i..i + 4).map(|b| u32::from_ne_bytes([b[0], b[1], b[2], b[3]]));
    let bad = || std::io::Error::new(std::io::ErrorKind::InvalidData, "short sock_diag answer");
    match u16_at(4).ok_or_else(bad)? {
        SOCK_DIAG_BY_FAMILY => Ok(Some(u32_at(HEADER + UID_AT).ok_or_else(bad)?)),
        t if t == libc::NLMSG_ERROR as u16 => {
            let errno = -(u32_at(HEADER).ok_or_else(bad)? as i32);
            if errno == libc::ENOENT {
                Ok(None)
            } else {
                Err(std::io::Error::from_raw_os_error(errno))
            }
        }
        _ => Err(bad()),
    }
}

/// The same from the socket table `/proc/net/tcp`, where a row's local address is the peer's end.
fn by_table(peer: SocketAddr, local: SocketAddr) -> Option<u32> {
    let hex = |a: SocketAddr| -> Option<String> {
        match a.ip() {
            IpAddr::V4(v4) => Some(format!("{:08X}:{:04X}", u32::from_ne_bytes(v4.octets()), a.port())),
            IpAddr::V6(_) => None,
        }
    };
    let (peer, local) = (hex(peer)?, hex(local)?);
    let table = std::fs::read_to_string("/proc/net/tcp").ok()?;
    table.lines().skip(1).find_map(|line| {
        let cols: Vec<&str> = line.split_whitespace().collect();
        (cols.get(1) == Some(&peer.as_str()) && cols.get(2) == Some(&local.as_str()))
            .then(|| cols.get(7)?.parse().ok())
            .flatten()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both ways of asking name this process's uid for a connection of its own, and nothing for a
    /// connection that does not exist.
    #[test]
    fn the_kernel_and_the_table_name_the_same_owner() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let local = listener.local_addr().unwrap();
        let client = std::net::TcpStream::connect(local).unwrap();
        let peer = client.local_addr().unwrap();
        let me = nix::unistd::geteuid().as_raw();
        assert_eq!(by_netlink(peer, local).unwrap(), Some(me));
        assert_eq!(by_table(peer, local), Some(me));
        assert_eq!(peer_uid(peer, local), Some(me));
        let nobody: SocketAddr = "127.0.0.1:1".parse().unwrap();
        assert_eq!(by_netlink(nobody, local).unwrap(), None);
        assert_eq!(peer_uid(nobody, local), None);
    }
}
